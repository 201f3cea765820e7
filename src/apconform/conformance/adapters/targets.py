"""Opening an adapter from its target text: ``direct:``, ``exec:`` or ``http:``.

``direct:MODULE:CALLABLE`` calls a Python callable that takes and returns
adapter-protocol messages; ``exec:COMMAND`` starts ``COMMAND`` and speaks the
protocol as JSON lines over its stdin and stdout; ``http:BASE_URL`` posts each
case to a deployed API.
"""

from __future__ import annotations

import shlex
import shutil

from apconform.conformance.adapters.base import Adapter, MessageAdapter
from apconform.conformance.adapters.channels import DirectChannel, ExecChannel, load_callable
from apconform.conformance.adapters.http import HttpAdapter
from apconform.core.errors import ApconformError, define_code

__all__ = ["ADAPTER_TARGET", "open_adapter"]

ADAPTER_TARGET = define_code(
    "APC-ADAPTER-TARGET",
    "The implementation to check is not given in a form the harness knows",
    "Use direct:MODULE:CALLABLE, exec:COMMAND or http:BASE_URL "
    "(for example exec:./my-impl or http:http://127.0.0.1:8000).",
)


def open_adapter(target: str, *, validate_protocol: bool = False) -> Adapter:
    """Build the adapter for ``direct:...``, ``exec:...`` or ``http:...``."""
    kind, _, rest = target.partition(":")
    if kind == "direct" and ":" in rest:
        try:
            handler = load_callable(rest)
        except (ImportError, AttributeError, TypeError, ValueError) as exc:
            raise ApconformError(
                ADAPTER_TARGET, f"cannot load {rest!r} for the direct adapter: {exc}"
            ) from None
        return MessageAdapter(
            target, lambda: DirectChannel(handler), validate_protocol=validate_protocol
        )
    if kind == "exec" and rest.strip():
        try:
            argv = shlex.split(rest)
        except ValueError as exc:
            raise ApconformError(
                ADAPTER_TARGET, f"cannot split the command {rest!r}: {exc}"
            ) from None
        if argv and shutil.which(argv[0]) is None:
            # The command names nothing runnable: the --impl value is wrong (APC-ADAPTER-TARGET),
            # not an implementation that ran and failed to start (APC-ADAPTER-START, which
            # shows its stderr); both are setup errors, exit 2.
            raise ApconformError(
                ADAPTER_TARGET,
                f"{target}: {argv[0]!r} is not an executable file or a command on PATH",
                hint="Check the path after exec: (relative paths start at the current "
                "directory) and that the file is executable (chmod +x).",
            )
        return MessageAdapter(
            target, lambda: ExecChannel(argv), validate_protocol=validate_protocol
        )
    if kind == "http" and rest.startswith(("http://", "https://")):
        return HttpAdapter(target, rest, validate_protocol=validate_protocol)
    raise ApconformError(ADAPTER_TARGET, f"cannot use {target!r} as an implementation")
