"""Sharing LinkML's work within one generation run: each schema file read once, one view per file.

Every LinkML generator builds its own SchemaView, and every SchemaView loads its
schema and each import again: a full ``gen`` used to load ``ap1.yaml`` about
thirty times, and loading (YAML parsing, then LinkML's normalisation of every
element) was half of the run's CPU. LinkML has no hook for sharing loaded
schemas between views, so :func:`loading_once` replaces
``linkml_runtime.utils.schemaview.load_schema_wrap`` (the one function both
``SchemaView(path)`` and its import resolution call) for the duration of a run.

Why the result is the same as without it:

- The memo is keyed by the file's resolved path *and* a digest of its bytes, so
  an edited file is loaded again; nothing is kept on disk or after the run.
- A view's own schema (``SchemaView(path)`` loads it without ``base_dir``) is a
  copy of its own (a pickle round trip, about a third of the cost of a load),
  because generators mutate the schema they are given (merging imports,
  clearing dates).
- An import (LinkML's ``load_import`` always passes ``base_dir``) is one object
  for every view of the run that imports it: views only read their imports
  (the one field they set, each element's ``from_schema``, gets its schema's
  id, the same in every view). ``ap1.yaml`` was unpickled once per view that
  imports it, about 0.5 CPU-seconds of the models; the outputs were compared
  byte for byte when this was added.
- The one field that depends on how the file was named, ``source_file``, is
  set as the loader sets it: the path as given when it was given relative to
  the working directory, the resolved path otherwise.
- Anything that is not a local file (a URL, text, a dict) goes to LinkML's own
  loader untouched.
"""

from __future__ import annotations

import hashlib
import os
import pickle
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import Any

__all__ = ["loading_once", "on_view", "share_induced_slots"]

_Loader = Callable[..., Any]


class _Memo:
    """Loaded schemas of one run, pickled, by (resolved path, digest of the bytes)."""

    def __init__(self, load: _Loader) -> None:
        self.load = load
        self.pickled: dict[tuple[str, str], bytes] = {}
        self.imports: dict[tuple[tuple[str, str], str], Any] = {}
        """One copy of each imported schema for every view that imports it."""

    def __call__(self, path: Any, **kwargs: Any) -> Any:
        base_dir = kwargs.get("base_dir")
        if set(kwargs) - {"base_dir"} or not isinstance(path, str) or "://" in path:
            return self.load(path, **kwargs)
        if base_dir is not None and (not isinstance(base_dir, str) or "://" in base_dir):
            return self.load(path, **kwargs)
        resolved = os.path.abspath(os.path.join(base_dir or os.getcwd(), path))
        try:
            with open(resolved, "rb") as handle:
                digest = hashlib.sha256(handle.read()).hexdigest()
        except OSError:
            return self.load(path, **kwargs)  # LinkML reports the problem its own way
        key = (resolved, digest)
        if base_dir is None:
            return self._copy(key, path, kwargs)
        recorded = _recorded_path(path, base_dir, resolved)
        shared = self.imports.get((key, recorded))
        if shared is None:
            shared = self.imports[key, recorded] = self._copy(key, path, kwargs)
        return shared

    def _copy(self, key: tuple[str, str], path: str, kwargs: dict[str, Any]) -> Any:
        """A schema object of its own: loaded the first time, unpickled after."""
        data = self.pickled.get(key)
        if data is None:
            schema = self.load(path, **kwargs)
            recorded, schema.source_file = schema.source_file, None  # not picklable as loaded
            self.pickled[key] = pickle.dumps(schema, protocol=pickle.HIGHEST_PROTOCOL)
            schema.source_file = recorded
            return schema
        schema = pickle.loads(data)
        schema.source_file = _recorded_path(path, kwargs.get("base_dir"), key[0])
        return schema


def _recorded_path(path: str, base_dir: str | None, resolved: str) -> str:
    """``source_file`` as LinkML's YAML loader records it, down to the type of the string."""
    from hbreader import FileInfo

    if base_dir is None and os.path.abspath(path) == resolved:
        return path
    info = FileInfo()
    info.source_file = resolved  # the loader records hbreader's resolved name, as str() of it
    return str(info.source_file)


_ACTIVE: list[_Memo] = []


@contextmanager
def loading_once() -> Iterator[None]:
    """Within this block, each schema file is parsed once (see the module docstring).

    Re-entrant: an inner block shares the outer one's memo; the original loader
    is back when the outermost block ends.
    """
    import linkml_runtime.utils.schemaview as schemaview

    if _ACTIVE:
        yield
        return
    memo = _Memo(schemaview.load_schema_wrap)
    _ACTIVE.append(memo)
    schemaview.load_schema_wrap = memo
    try:
        yield
    finally:
        schemaview.load_schema_wrap = memo.load
        _ACTIVE.clear()


def on_view(generator: Any, view: Any) -> Any:
    """Let a LinkML generator built from ``view.schema`` read ``view`` itself, and return it.

    A generator builds its own SchemaView from whatever it is given, so the models
    and the JSON Schema of one file each induced every slot of every class the file
    reaches (the stock Pydantic generator does so for all of them, not only the
    generated ones). Handed the root schema object, the generator's own view loads
    nothing (imports are read lazily) and its changes to the root (the metamodel
    version, no generation date) land on the shared root, the same for every
    generator; swapping in the shared view then makes its cached induced slots serve
    all of them. Neither generator changes the elements it reads: the outputs were
    compared byte for byte with those of one view per generator when this was added.
    """
    if generator.schema is not view.schema:
        raise AssertionError("the generator was not built from this view's schema")
    generator.schemaview = view
    return generator


def share_induced_slots(view: Any) -> Any:
    """Make ``view`` answer ``induced_slot`` once per slot and class, however it is called.

    SchemaView caches ``induced_slot`` by how it was called, so the same slot of the
    same class asked for positionally (the Pydantic generator), with a keyword (the
    JSON Schema generator, through ``class_induced_slots``) or with the default
    ``imports`` spelt out is induced again each time; inducing is most of what the
    generators cost. The view's schema is not changed during a run, so one answer
    per (slot, class, imports, mangle_name) is the answer. Returns ``view``.
    """
    method = type(view).induced_slot
    memo: dict[tuple[Any, ...], Any] = {}

    def induced_slot(
        slot_name: str,
        class_name: str | None = None,
        imports: bool = True,
        mangle_name: bool = False,
    ) -> Any:
        key = (slot_name, class_name, imports, mangle_name)
        slot = memo.get(key)
        if slot is None:
            slot = memo[key] = method(view, slot_name, class_name, imports, mangle_name)
        return slot

    view.induced_slot = induced_slot
    return view
