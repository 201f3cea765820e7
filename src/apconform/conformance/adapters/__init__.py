"""Implementation adapters: one small interface for in-process, subprocess and HTTP targets.

``base`` holds the interface and the message adapter, ``channels`` the in-process
and subprocess channels, ``http`` the adapter for a deployed API, ``targets``
turns a target text into an adapter. May import ``apconform.conformance.protocol``,
``apconform.core`` and ``apconform.models``.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from apconform.core.lazy import lazy_exports

if TYPE_CHECKING:
    from apconform.conformance.adapters.base import ADAPTER_START, Adapter, MessageAdapter
    from apconform.conformance.adapters.targets import ADAPTER_TARGET, open_adapter

__all__ = ["ADAPTER_START", "ADAPTER_TARGET", "Adapter", "MessageAdapter", "open_adapter"]

_EXPORTS = {
    "ADAPTER_START": "apconform.conformance.adapters.base",
    "ADAPTER_TARGET": "apconform.conformance.adapters.targets",
    "Adapter": "apconform.conformance.adapters.base",
    "MessageAdapter": "apconform.conformance.adapters.base",
    "open_adapter": "apconform.conformance.adapters.targets",
}
__getattr__ = lazy_exports(__name__, _EXPORTS)
