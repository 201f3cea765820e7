"""The built-in model endpoint: seeded personas behind a real OpenAI-compatible HTTP server."""

from __future__ import annotations

from typing import TYPE_CHECKING

from apconform.core.lazy import lazy_exports

if TYPE_CHECKING:
    from apconform.ap1.mock.personas import PERSONAS as PERSONAS
    from apconform.ap1.mock.server import MODELS as MODELS
    from apconform.ap1.mock.server import MockEndpoint as MockEndpoint

__getattr__ = lazy_exports(__name__)
