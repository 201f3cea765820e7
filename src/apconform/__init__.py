"""apconform: a schema-first conformance kit for AP-1 and APx."""

__version__ = "0.1.0"

__all__ = ["__version__"]
