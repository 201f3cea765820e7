"""Who answers at the built-in endpoint's address: the endpoint says, and a run checks.

``apconform ap1 run`` against a built-in model (``mock-*``) first asks the server at the
sealed URL who it is (``GET /v1/apconform/endpoint``): the built-in endpoint answers with
the instrument's source hash and the hashes of the fixture, questions and derivations it
answers from, which must be the sealed ones. Another program on that port (the port was
busy when ``serve-mock`` started, say) answers otherwise, or not at all, and the run is
refused before any request: its transcript would record another program's answers as the
built-in endpoint's.
"""

from __future__ import annotations

import http.client
import json
from pathlib import Path
from typing import TypedDict
from urllib.parse import urlsplit

from apconform.ap1.inputs.plan import RunInputs
from apconform.ap1.mock.personas import PERSONAS
from apconform.ap1.rundir import INPUT_FILES, SEAL_FILE, load_in
from apconform.ap1.seal.source import instrument_source_hash
from apconform.core.canonical import sha256_hex
from apconform.core.errors import ApconformError, define_code

__all__ = [
    "ENDPOINT_FOREIGN",
    "IDENTITY_KIND",
    "IDENTITY_PATH",
    "check_built_in_endpoint",
    "endpoint_identity",
    "inputs_identity",
    "sealed_identity",
]

IDENTITY_PATH = "/v1/apconform/endpoint"
IDENTITY_KIND = "apconform-ap1-built-in-endpoint"
_COMPARED = ("fixture", "questions", "derivations")
_LOOPBACK = ("127.0.0.1", "localhost", "::1")
_BUILT_IN = frozenset(f"mock-{name}" for name in PERSONAS)
"""The built-in endpoint's models (the server's MODELS), one per persona."""

ENDPOINT_FOREIGN = define_code(
    "AP1-ENDPOINT-FOREIGN",
    "The server at the sealed URL is not the built-in endpoint for this seal",
    "Stop the program that holds the port (or start the built-in endpoint on another port "
    "with `apconform ap1 serve-mock --port N` and seal with --endpoint "
    "http://127.0.0.1:N/v1/chat/completions), start `apconform ap1 serve-mock` with the "
    "inputs the run is sealed with, wait for its ready line, and run again.",
)


class EndpointIdentity(TypedDict):
    """What ``GET /v1/apconform/endpoint`` answers (and what a run expects it to answer)."""

    kind: str
    instrumentSourceSha256: str | None
    inputs: dict[str, str | None]
    """The sha256 of each input the endpoint answers from, by name."""


def endpoint_identity(inputs: RunInputs) -> EndpointIdentity:
    """What the built-in endpoint says of itself: the instrument and the inputs it serves."""
    return {
        "kind": IDENTITY_KIND,
        "instrumentSourceSha256": instrument_source_hash(),
        "inputs": {name: sha256_hex(inputs.documents[name]) for name in _COMPARED},
    }


def _ask(url: str, timeout: float) -> tuple[int, bytes]:
    parts = urlsplit(url)
    connection_type = (
        http.client.HTTPSConnection if parts.scheme == "https" else http.client.HTTPConnection
    )
    connection = connection_type(parts.hostname or "127.0.0.1", parts.port, timeout=timeout)
    try:
        connection.request("GET", IDENTITY_PATH, headers={"Accept": "application/json"})
        response = connection.getresponse()
        return response.status, response.read(65536)
    finally:
        connection.close()


def sealed_identity(run_dir: Path) -> tuple[str, str, EndpointIdentity]:
    """The sealed endpoint URL and model, and the identity the built-in endpoint must have."""
    config = load_in(run_dir, INPUT_FILES["config"])
    seal = load_in(run_dir, SEAL_FILE)
    endpoint = config.get("endpoint") if isinstance(config, dict) else None
    endpoint = endpoint if isinstance(endpoint, dict) else {}
    sealed = seal.get("inputs", {}) if isinstance(seal, dict) else {}
    identity: EndpointIdentity = {
        "kind": IDENTITY_KIND,
        "instrumentSourceSha256": seal.get("instrument", {}).get("sourceSha256")
        if isinstance(seal, dict)
        else None,
        "inputs": {name: sealed.get(name, {}).get("sha256") for name in _COMPARED},
    }
    return str(endpoint.get("url")), str(endpoint.get("model")), identity


def inputs_identity(inputs: RunInputs) -> tuple[str, str, EndpointIdentity]:
    """The same for inputs about to be sealed (checked before the run directory is written)."""
    endpoint = inputs.config.model.endpoint
    return endpoint.url, endpoint.model, endpoint_identity(inputs)


def check_built_in_endpoint(
    url: str, model: str, expected: EndpointIdentity, *, timeout: float = 5.0
) -> bool:
    """For a built-in model, refuse a server at ``url`` that is not the expected endpoint.

    Returns False (nothing checked) when ``model`` is not a built-in one, or ``url`` is not
    on this machine's loopback (no request leaves the machine before the run's own checks).
    """
    if model not in _BUILT_IN or urlsplit(url).hostname not in _LOOPBACK:
        return False  # the built-in endpoint listens on 127.0.0.1 alone; ask nobody else
    try:
        status, body = _ask(url, timeout)
    except OSError as exc:
        raise ApconformError(
            ENDPOINT_FOREIGN,
            f"nothing answers at {url} ({exc.strerror or exc}); the run is for the built-in "
            f"model {model}",
            hint="Start `apconform ap1 serve-mock` (in another terminal, or with &), wait for "
            "its ready line, and run again.",
        ) from None
    try:
        told = json.loads(body) if status == 200 else None
    except ValueError:
        told = None
    if not isinstance(told, dict) or told.get("kind") != IDENTITY_KIND:
        raise ApconformError(
            ENDPOINT_FOREIGN,
            f"the server at {url} is not apconform's built-in endpoint (GET {IDENTITY_PATH} "
            f"answered HTTP {status}); another program holds the port, so the run would record "
            "its answers",
        )
    differences = []
    source = expected["instrumentSourceSha256"]
    if told.get("instrumentSourceSha256") != source:
        differences.append(
            f"it runs another apconform (source {str(told.get('instrumentSourceSha256'))[:16]}, "
            f"this run's {str(source)[:16]})"
        )
    given = told.get("inputs")
    served: dict[str, object] = given if isinstance(given, dict) else {}
    for name in _COMPARED:
        wanted = expected["inputs"][name]
        if served.get(name) != wanted:
            differences.append(
                f"it serves another {name} ({str(served.get(name))[:16]}, this run's "
                f"{str(wanted)[:16]})"
            )
    if differences:
        raise ApconformError(
            ENDPOINT_FOREIGN,
            f"the built-in endpoint at {url} is not the one for this run's seal: "
            + "; ".join(differences),
        )
    return True
