"""The operations vectors exercise, and the reference implementation of each.

An operation takes the vector's input (a JSON value) and returns the answer (a
JSON value) or raises an :class:`~apconform.core.errors.ApconformError` whose
code is the refusal. Protocol packages register their operations here; the
harness and the adapters look them up by name.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from apconform.conformance.contracts import BAD_OPERATION_INPUT, CATALOGUE_PAGE, check_input
from apconform.core.canonical import canonical_text, sha256_hex
from apconform.core.errors import ApconformError, define_code
from apconform.core.jsonload import DEFAULT_LIMITS, loads, size_error

__all__ = [
    "BAD_OPERATION_INPUT",
    "Operation",
    "field",
    "get_operation",
    "input_documents",
    "operation",
    "operation_names",
]

Operation = Callable[[Any], Any]

UNKNOWN_OPERATION = define_code(
    "APC-OP-UNKNOWN",
    "The operation is not known to this implementation",
    f"Check the operation name against the operation catalogue ({CATALOGUE_PAGE}).",
)

_REGISTRY: dict[str, Operation] = {}
_CHECKED: dict[str, Operation] = {}
_INPUT_DOCUMENTS: dict[str, dict[str, str]] = {}


def operation(
    name: str, *, inputs: dict[str, str] | None = None
) -> Callable[[Operation], Operation]:
    """Register the reference implementation of an operation.

    ``inputs`` maps JSON Pointers into the operation's input to the document
    types found there (for example ``{"/manifest": "apx-manifest"}``), so the
    schema parity test can check every document a vector carries.
    """

    def register(func: Operation) -> Operation:
        if name in _REGISTRY and _REGISTRY[name] is not func:
            raise ValueError(f"operation {name} registered twice")
        _REGISTRY[name] = func
        _INPUT_DOCUMENTS[name] = dict(inputs or {})
        return func

    return register


def input_documents(name: str) -> dict[str, str]:
    """JSON Pointer -> document type for the documents inside an operation's input."""
    _load_protocol_operations()
    return dict(_INPUT_DOCUMENTS.get(name, {}))


def _load_protocol_operations() -> None:
    # Protocol packages register on import; a package missing from this build is skipped.
    import importlib

    modules = (
        "apconform.conformance.kit_operations",
        "apconform.apx.operations",
        "apconform.ap1.operations",
    )
    for module in modules:
        try:
            importlib.import_module(module)
        except ModuleNotFoundError as exc:
            if exc.name is None or not module.startswith(exc.name):
                raise


def get_operation(name: str) -> Operation:
    """The reference implementation of an operation, or a refusal naming the known ones.

    The callable checks its input against the operation's input schema first
    (:func:`~apconform.conformance.contracts.check_input`), so every way of
    calling an operation refuses the same inputs with the same code.
    """
    _load_protocol_operations()
    checked = _CHECKED.get(name)
    if checked is not None:
        return checked
    try:
        function = _REGISTRY[name]
    except KeyError:
        raise ApconformError(
            UNKNOWN_OPERATION,
            f"unknown operation {name!r}",
            hint=f"Known operations: {', '.join(sorted(_REGISTRY))}.",
        ) from None

    def run(value: Any) -> Any:
        check_input(name, value)
        return function(value)

    run.__name__ = run.__qualname__ = getattr(function, "__name__", name)
    run.__doc__ = function.__doc__
    _CHECKED[name] = run
    return run


def operation_names() -> list[str]:
    _load_protocol_operations()
    return sorted(_REGISTRY)


def field(value: Any, name: str, kind: type) -> Any:
    """A member of an operation's input, of the given JSON type, or a refusal naming it."""
    return _field(value, name, kind)


def _field(value: Any, name: str, kind: type) -> Any:
    if not isinstance(value, dict) or name not in value:
        raise ApconformError(
            BAD_OPERATION_INPUT, f"the input needs a member {name!r}", path=f"$.{name}"
        )
    found = value[name]
    is_bool_for_number = isinstance(found, bool) and kind in (int, float)
    if not isinstance(found, kind) or is_bool_for_number:
        raise ApconformError(
            BAD_OPERATION_INPUT,
            f"input member {name!r} must be a JSON {kind.__name__}",
            path=f"$.{name}",
        )
    return found


@operation("kit.canonicalize")
def kit_canonicalize(value: Any) -> dict[str, str]:
    """Input {"value": any}; answer the canonical text and the digest rule of KIT-HASH-1."""
    target = _field(value, "value", object)
    return {"canonical": canonical_text(target), "sha256": sha256_hex(target)}


@operation("kit.parse")
def kit_parse(value: Any) -> dict[str, str]:
    """Input {"text": str, "padToBytes"?: int}; parse it boundedly, answer the canonical text.

    ``padToBytes`` right-pads the UTF-8 text with spaces to that many bytes, so a
    vector can exercise the size limit without being over the limit itself.
    """
    text = _field(value, "text", str)
    raw = text.encode("utf-8")
    if isinstance(value, dict) and "padToBytes" in value:
        size = _field(value, "padToBytes", int)
        if size > DEFAULT_LIMITS.max_bytes:  # refused as the padded text would be, unallocated
            raise size_error("<input>", DEFAULT_LIMITS, max(size, len(raw)))
        if size > len(raw):
            raw += b" " * (size - len(raw))
    return {"canonical": canonical_text(loads(raw))}
