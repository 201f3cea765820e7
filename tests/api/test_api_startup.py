"""A worker answers before it has read the vectors, and never computes the OpenAPI examples.

Before, each worker loaded 1,310 vectors and ran a conformance check to compute its
OpenAPI examples, then loaded the vectors again for its catalogue, before it could
answer anything (about 2 CPU-seconds). The examples now come from the file
`apconform-dev gen` writes (apconform/api/openapi_examples.json, drift-checked), and
the catalogue loads beside serving.
"""

from __future__ import annotations

import json
import threading
from typing import Any

import pytest
from conftest import call

from apconform.api import ApiSettings, create_app
from apconform.api.catalog import Catalog, LazyCatalog
from apconform.api.example_store import EXAMPLES_FILE, recording, stored
from apconform.core.errors import ApconformError, UsageError


def _no_vectors(*args: Any, **kwargs: Any) -> Any:
    raise AssertionError("the vectors were read while the app was built")


def test_building_the_app_reads_no_vector_and_computes_no_example(
    monkeypatch: pytest.MonkeyPatch, repo: Any
) -> None:
    monkeypatch.setattr("apconform.conformance.vectors.load_vectors", _no_vectors)
    monkeypatch.setattr("apconform.api.examples._loaded", _no_vectors)
    monkeypatch.setattr("apconform.api.example_runs.run_example", _no_vectors)
    app = create_app(ApiSettings(), ledger=None, load_catalog=False)
    served = json.loads(json.dumps(app.openapi()))
    committed = json.loads((repo / "schemas" / "openapi.json").read_text(encoding="utf-8"))
    assert served == committed  # the examples read back are the ones generated


def test_the_examples_file_holds_what_generation_computes() -> None:
    with recording() as text:
        value = stored("probe", lambda: {"answer": [1, 2.5, None, "é"]})
    assert value == {"answer": [1, 2.5, None, "é"]}
    assert json.loads(text()) == {"probe": {"answer": [1, 2.5, None, "é"]}}
    assert stored("no-such-key", lambda: "computed") == "computed"  # a file behind: computed
    assert EXAMPLES_FILE.name == "openapi_examples.json" and EXAMPLES_FILE.is_file()


def test_health_answers_while_the_catalogue_loads_and_the_routes_wait_for_it() -> None:
    release = threading.Event()
    calls: list[int] = []

    def slow_load() -> Catalog:
        calls.append(1)
        release.wait(30)
        return Catalog.load()

    app = create_app(ApiSettings(), ledger=None, load_catalog=False)
    app.state.catalog = LazyCatalog(slow_load)
    loaded: list[object] = []
    app.state.catalog.when_loaded(lambda: loaded.append(1))
    assert call(app, "GET", "/v1/health").json == {"status": "ok"}  # nothing loaded yet
    answers: list[Any] = []
    reader = threading.Thread(
        target=lambda: answers.append(call(app, "GET", "/v1/conformance/vectors"))
    )
    reader.start()
    reader.join(0.5)
    assert reader.is_alive() and not answers and not loaded  # waiting for the catalogue
    release.set()
    reader.join(30)
    assert answers[0].status == 200 and answers[0].json["count"] > 500
    assert call(app, "GET", "/v1/version").status == 200
    assert calls == [1] and loaded == [1]  # loaded once, for both routes


def test_a_catalogue_that_cannot_load_is_a_problem_answer_not_a_dead_worker() -> None:
    def broken() -> Catalog:
        raise UsageError("the vectors folder is missing (a broken installation)")

    app = create_app(ApiSettings(), ledger=None, load_catalog=False)
    app.state.catalog = LazyCatalog(broken)
    assert call(app, "GET", "/v1/health").status == 200
    for _ in range(2):
        answer = call(app, "GET", "/v1/conformance/vectors")
        assert answer.status >= 400
        assert "broken installation" in answer.json["detail"]
    with pytest.raises(ApconformError):
        app.state.catalog.get()
