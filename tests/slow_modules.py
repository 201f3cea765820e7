"""The test modules the ``fast`` selection leaves out (tests/conftest.py marks them).

Each took 4 s or more, summed per module, in a whole-suite run on the 2-core machine
(pytest --junitxml, 2026-12-05, load about 4). Their tests are marked ``slow`` and every
other test ``fast``, so ``pytest -m fast`` is the quick selection (CONTRIBUTING.md,
``nox -s fast``). tests/test_fast_selection.py checks every name here is a test module
and that each test package keeps fast tests. The layering test stays fast on purpose
(12 s): it is the check a contributor needs most. A module of its own, not conftest.py:
several conftest modules share that name, so importing it by name is ambiguous.
"""

from __future__ import annotations

SLOW_MODULES = frozenset(
    {
        "ap1/test_adjudication_browser.py",  # 15 s
        "ap1/test_endpoint_outage.py",  # 10 s
        "ap1/test_engine.py",  # 8 s
        "ap1/test_inspect_endpoint.py",  # 27 s
        "ap1/test_inspect_personas.py",  # 70 s
        "ap1/test_resume_kill.py",  # 14 s
        "api/test_api_explainer.py",  # 7 s
        "api/test_api_fuzz.py",  # 167 s
        "api/test_api_ledger.py",  # 5 s
        "api/test_api_openapi_examples.py",  # 11 s
        "api/test_api_slow_clients.py",  # 8 s
        "api/test_fuzz_hooks.py",  # 29 s
        "core/test_file_inputs.py",  # 6 s
        "dev/test_ci_integrations.py",  # 53 s
        "dev/test_docs_site.py",  # 22 s
        "dev/test_generation.py",  # 21 s
        "dev/test_schema_registry.py",  # 8 s
        "harness/test_adapters.py",  # 19 s
        "harness/test_check_cli.py",  # 18 s
        "harness/test_conformance_suite.py",  # 20 s
        "harness/test_http_adapter.py",  # 5 s
        "harness/test_kit_docs.py",  # 7 s
        "harness/test_manifest_generation.py",  # 12 s
        "harness/test_reports.py",  # 5 s
        "harness/test_verdict.py",  # 15 s
        "ledger/test_ledger_api_server.py",  # 7 s
        "ledger/test_ledger_cli.py",  # 4 s
        "ledger/test_ledger_info.py",  # 8 s
        "ledger/test_ledger_site.py",  # 4 s
        "test_cli.py",  # 6 s
        "test_cli_path_arguments.py",  # 39 s
        "test_conformance_report_glance.py",  # 4 s
        "test_hostile_strings.py",  # 6 s
        "test_parity.py",  # 14 s
        "test_readme_tour.py",  # 35 s
        "test_report_pages.py",  # 14 s
    }
)
