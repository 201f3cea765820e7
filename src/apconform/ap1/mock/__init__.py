"""The built-in model endpoint: seeded personas behind a real OpenAI-compatible HTTP server."""

from __future__ import annotations

from typing import TYPE_CHECKING

from apconform.core.lazy import lazy_exports

if TYPE_CHECKING:
    from apconform.ap1.mock.personas import PERSONAS
    from apconform.ap1.mock.server import MODELS, MockEndpoint

__all__ = ["MODELS", "PERSONAS", "MockEndpoint"]

_EXPORTS = {
    "MODELS": "apconform.ap1.mock.server",
    "PERSONAS": "apconform.ap1.mock.personas",
    "MockEndpoint": "apconform.ap1.mock.server",
}
__getattr__ = lazy_exports(__name__, _EXPORTS)
