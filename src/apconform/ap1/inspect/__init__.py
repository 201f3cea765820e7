"""AP-1 inside Inspect AI: the task, its tool loop and calculator, a scorer, and the log import.

``inspect eval apconform/ap1 --model PROVIDER/MODEL -T run_dir=RUN`` runs the
sealed plan of RUN through any model Inspect supports; ``apconform ap1 import
inspect LOG --run-dir RUN`` turns the log into the run's hash-chained
transcript, which ``apconform ap1 score`` scores unchanged. Needs the optional
``inspect`` extra (``pip install 'apconform[inspect]'``); nothing here is
imported until a name is used. May import every layer below the operations.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from apconform.core.lazy import lazy_exports

if TYPE_CHECKING:
    from apconform.ap1.inspect.log_import import ImportResult as ImportResult
    from apconform.ap1.inspect.log_import import import_inspect_log as import_inspect_log
    from apconform.ap1.inspect.scorer import ap1_score as ap1_score
    from apconform.ap1.inspect.solver import ap1_tool_loop as ap1_tool_loop
    from apconform.ap1.inspect.task import ap1 as ap1
    from apconform.ap1.inspect.tool import calculator_tool as calculator_tool

__getattr__ = lazy_exports(__name__)
