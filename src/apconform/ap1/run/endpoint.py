"""The endpoint adapter: one round sent with `requests`, retried by the declared policy.

It posts to the configured URL only (no redirects, no proxy or netrc from the
environment), records every attempt, and returns either a parsed response or
the cause of failure. Credentials are masked in everything it records.
"""

from __future__ import annotations

import threading
import time
from dataclasses import dataclass, field
from decimal import Decimal

import requests

from apconform import __version__
from apconform.ap1.clock import elapsed_text, utc_now
from apconform.ap1.masking import MASK, Masker
from apconform.ap1.run.ratelimit import RateLimiter
from apconform.ap1.run.record import (
    AttemptRecord,
    HeaderField,
    RequestRecord,
    ResponseRecord,
    SentParameter,
)
from apconform.ap1.run.retry import RETRYABLE, RetryPolicy, backoff_wait, retry_after_seconds
from apconform.ap1.run.shapes import response_record
from apconform.ap1.run.wire import RESPONSE_LIMITS, not_json, parse_body
from apconform.core.canonical import sha256_bytes
from apconform.core.errors import ApconformError
from apconform.models.ap1 import AttemptOutcome

__all__ = ["Endpoint", "Exchange", "Interrupted"]


class Interrupted(Exception):
    """The run is stopping; the execution in flight is abandoned, not recorded."""


@dataclass
class Exchange:
    """One round: the request record, every attempt, and the response when one was read."""

    request: RequestRecord
    attempts: list[AttemptRecord] = field(default_factory=list)
    response: ResponseRecord | None = None
    body: object = None
    """The response body parsed (JSON, numbers as Decimal), or None."""
    cause: str | None = None

    @property
    def answered(self) -> bool:
        return self.cause is None


class Endpoint:
    """Sends request bodies to one URL; safe to share between worker threads."""

    def __init__(
        self,
        url: str,
        policy: RetryPolicy,
        *,
        api_key: str | None,
        masker: Masker,
        limiter: RateLimiter,
        stop: threading.Event,
    ) -> None:
        self.url = url
        self.policy = policy
        self._api_key = api_key
        self.mask = masker
        self.limiter = limiter
        self.stop = stop
        self._local = threading.local()
        timeout = float(policy.timeout)
        self._timeout = (timeout, timeout)

    def __repr__(self) -> str:
        return f"Endpoint({self.url!r}, key={'set' if self._api_key else 'none'})"

    def _session(self) -> requests.Session:
        session: requests.Session | None = getattr(self._local, "session", None)
        if session is None:
            session = requests.Session()
            session.trust_env = False  # no proxy, netrc or CA settings from the environment
            self._local.session = session
        return session

    def _headers(self) -> tuple[dict[str, str], list[HeaderField]]:
        headers = {
            "Content-Type": "application/json",
            "Accept": "application/json",
            "User-Agent": f"apconform/{__version__}",
        }
        if self._api_key:
            headers["Authorization"] = f"Bearer {self._api_key}"
        recorded: list[HeaderField] = [
            {"name": k, "value": f"Bearer {MASK}" if k == "Authorization" else v}
            for k, v in headers.items()
        ]
        return headers, recorded

    def exchange(self, body_text: str, sampling_as_sent: list[SentParameter]) -> Exchange:
        """Send one round, retrying by the policy; raise Interrupted when the run stops."""
        data = body_text.encode("utf-8")
        headers, recorded = self._headers()
        result = Exchange(
            request={
                "url": self.url,
                "headers": recorded,
                "bodyText": self.mask(body_text),
                "bodySha256": sha256_bytes(data),
                "samplingAsSent": sampling_as_sent,
            }
        )
        for attempt in range(1, self.policy.max_attempts + 1):
            if self.stop.is_set():
                raise Interrupted
            self.limiter.acquire(self.stop)
            record, retry_after = self._attempt(attempt, data, headers, result)
            result.attempts.append(record)
            if record["outcome"] == AttemptOutcome.ok.value:
                result.cause = None
                return result
            result.cause = self._cause(record, attempt)
            if record["outcome"] not in RETRYABLE or attempt == self.policy.max_attempts:
                break
            wait = backoff_wait(self.policy, attempt, retry_after)
            record["waitSeconds"] = str(wait)
            if self.stop.wait(float(wait)):
                raise Interrupted
        return result

    def _cause(self, record: AttemptRecord, attempt: int) -> str:
        detail = record.get("error") or f"HTTP {record.get('httpStatus')}"
        plural = "s" if attempt != 1 else ""
        return f"{record['outcome']} after {attempt} attempt{plural}: {detail}"

    def _attempt(
        self, attempt: int, data: bytes, headers: dict[str, str], result: Exchange
    ) -> tuple[AttemptRecord, Decimal | None]:
        started_at, started = utc_now(), time.perf_counter()
        record: AttemptRecord = {"attempt": str(attempt), "startedAt": started_at}
        result.response, result.body = None, None  # the record describes the last attempt
        retry_after = None
        try:
            response = self._session().post(
                self.url,
                data=data,
                headers=headers,
                timeout=self._timeout,
                allow_redirects=False,
                stream=True,
            )
            try:
                raw = _read_limited(response)
            finally:
                response.close()
        except requests.Timeout as exc:
            record.update(
                {
                    "outcome": AttemptOutcome.timeout.value,
                    "error": self.mask(
                        f"no response within {self.policy.timeout} s ({type(exc).__name__})"
                    ),
                }
            )
        except (requests.RequestException, OSError) as exc:
            record.update(
                {
                    "outcome": AttemptOutcome.transport_error.value,
                    "error": self.mask(f"{type(exc).__name__}: {exc}")[:2000],
                }
            )
        else:
            status = response.status_code
            record["httpStatus"] = str(status)
            retry_after = retry_after_seconds(response.headers.get("Retry-After"))
            outcome, body, error = self._read(status, raw)
            record["outcome"] = outcome
            if error:
                record["error"] = self.mask(error)[:2000]
            result.response = self._response_record(status, raw, body)
            result.body = body
        record["elapsedSeconds"] = elapsed_text(started)
        return record, retry_after

    def _read(self, status: int, raw: bytes | None) -> tuple[str, object, str | None]:
        body: object = None
        if raw is not None:
            try:
                body = parse_body(raw)
            except (ApconformError, ValueError) as exc:
                body = None
                if status == 200:
                    return AttemptOutcome.malformed_body.value, None, not_json(status, exc)
        elif status == 200:
            return (
                AttemptOutcome.malformed_body.value,
                None,
                f"the body exceeds {RESPONSE_LIMITS.max_bytes} bytes",
            )
        if status == 200:
            return AttemptOutcome.ok.value, body, None
        excerpt = self.mask((raw or b"").decode("utf-8", "replace"))[:500]
        if status == 429:
            return AttemptOutcome.rate_limited.value, body, f"HTTP 429: {excerpt}"
        if 500 <= status <= 599:
            return AttemptOutcome.server_error.value, body, f"HTTP {status}: {excerpt}"
        return AttemptOutcome.http_error.value, body, f"HTTP {status}: {excerpt}"

    def _response_record(self, status: int, raw: bytes | None, body: object) -> ResponseRecord:
        text = (raw or b"").decode("utf-8", "replace")
        return response_record(str(status), text, sha256_bytes(raw or b""), body, self.mask)


def _read_limited(response: requests.Response) -> bytes | None:
    """The body, or None when it is larger than the response limit."""
    limit = RESPONSE_LIMITS.max_bytes
    chunks, size = [], 0
    for chunk in response.iter_content(chunk_size=65536):
        size += len(chunk)
        if size > limit:
            return None
        chunks.append(chunk)
    return b"".join(chunks)
