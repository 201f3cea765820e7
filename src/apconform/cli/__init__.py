"""`apconform`, the command line: the dispatcher, the convention and one module per command.

``dispatch`` parses the command line and loads only the module of the command
being run (its table ``_COMMANDS`` names them); ``convention`` makes every
command behave alike; ``shared`` holds what several commands use. Command
modules never import the dispatcher.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from apconform.core.lazy import lazy_exports

if TYPE_CHECKING:
    from apconform.cli.dispatch import main as main

__getattr__ = lazy_exports(__name__)
