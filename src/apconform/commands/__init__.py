"""Subcommands of `apconform` that belong to no single protocol."""

__all__: list[str] = []
