"""The built-in model endpoint: seeded personas behind a real OpenAI-compatible HTTP server."""

from apconform.ap1.mock.personas import PERSONAS
from apconform.ap1.mock.server import MODELS, MockEndpoint

__all__ = ["MODELS", "PERSONAS", "MockEndpoint"]
