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
    from apconform.conformance.adapters.base import ADAPTER_START as ADAPTER_START
    from apconform.conformance.adapters.base import Adapter as Adapter
    from apconform.conformance.adapters.base import MessageAdapter as MessageAdapter
    from apconform.conformance.adapters.targets import ADAPTER_TARGET as ADAPTER_TARGET
    from apconform.conformance.adapters.targets import open_adapter as open_adapter

__getattr__ = lazy_exports(__name__)
