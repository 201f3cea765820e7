"""The adjudication web application: two blind scorers and a reconciler in the browser.

A thin face over ``apconform.ap1.scoring.adjudication`` (the stores, the
evidence, the merge), served by ``apconform ap1 adjudicate serve`` on
127.0.0.1. It may import the scorer, the HTTP API's shared parts (problem
documents, the request guard) and ``core``.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from apconform.core.lazy import lazy_exports

if TYPE_CHECKING:
    from apconform.ap1.adjudication_web.app import Desk as Desk
    from apconform.ap1.adjudication_web.app import create_app as create_app
    from apconform.ap1.adjudication_web.server import serve as serve

__getattr__ = lazy_exports(__name__)
