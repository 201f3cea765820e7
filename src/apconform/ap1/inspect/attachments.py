"""Putting back the text Inspect moved out of a live transcript into its attachments.

While a sample runs, Inspect replaces every long string of a model event's
provider request and response (over 100 characters) with a reference
``attachment://<hash>`` and keeps the text in the transcript's attachments.
The tool loop and the scorer read the provider's own argument text and final
text from those objects, so they resolve the references first; the import
reads the log with Inspect's own resolution (``resolve_attachments=True``).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

__all__ = ["PREFIX", "resolve"]

PREFIX = "attachment://"


def resolve(value: Any, attachments: Mapping[str, str]) -> Any:
    """``value`` (plain JSON) with every known attachment reference replaced by its text."""
    if isinstance(value, str):
        if value.startswith(PREFIX):
            return attachments.get(value[len(PREFIX) :], value)
        return value
    if isinstance(value, dict):
        return {key: resolve(item, attachments) for key, item in value.items()}
    if isinstance(value, list):
        return [resolve(item, attachments) for item in value]
    return value
