"""Re-scoring a large transcript in worker processes, merged in file order: the same report bytes.

The parent cuts the transcript into byte ranges of whole lines (it reads only
a little around each cut to find a line end) and hands each range to a
worker, which reads those bytes itself, checks and scores its lines with an
ordinary :class:`Rescorer` and sends back counts, listings and the range's
executions.jsonl lines. The parent takes the results strictly in file order,
at most ``2 x jobs`` ranges in flight, so memory stays bounded and the output
is deterministic. A range is checked from the position its first record
claims (its seq and previous hash); when that claim or a repeated cell key
does not hold at the merge, the parent drops the worker's result and feeds
those lines to its own rescorer, so a
damaged transcript is reported exactly as in one process.

Workers are forked (they inherit the prepared inputs) and used by default only
for transcripts of at least :data:`PARALLEL_MIN_BYTES`; small runs stay in one
process, where starting workers would cost more than it saves.
"""

from __future__ import annotations

import json
import multiprocessing
import os
import resource
from collections import deque
from collections.abc import Callable, Iterator
from concurrent.futures import Future, ProcessPoolExecutor
from pathlib import Path
from typing import TypedDict

from apconform.ap1.scoring.aggregate import Accumulator
from apconform.ap1.scoring.context import ScoringInputs
from apconform.ap1.scoring.rescoring import Rescorer, Stretch, execution_line

__all__ = ["PARALLEL_MIN_BYTES", "auto_jobs", "stream_parallel"]

PARALLEL_MIN_BYTES = 128 * 1024 * 1024
"""About 14,000 executions of the worked example (their lines are some 9 KB each)."""
_BLOCK = 4 * 1024 * 1024
_PROBE = 64 * 1024


class _Worker(TypedDict, total=False):
    """What a worker process keeps from its start: the prepared inputs and the open transcript."""

    inputs: ScoringInputs
    fd: int


_worker: _Worker = {}


def auto_jobs(transcript: Path) -> int:
    """Workers to use when none were asked for: two on a multi-core machine for a large file."""
    cores = os.cpu_count() or 1
    if cores < 2 or transcript.stat().st_size < PARALLEL_MIN_BYTES:
        return 1
    return 2


def _start(inputs: ScoringInputs, path: str) -> None:
    _worker["inputs"] = inputs
    _worker["fd"] = os.open(path, os.O_RDONLY)


def _claims(raw: bytes) -> tuple[int, str] | None:
    """The line number and previous hash a block's first record claims (seq n is line n + 1)."""
    try:
        record = json.loads(raw)
    except (ValueError, RecursionError):
        return None
    if not isinstance(record, dict):
        return None
    seq, prev = record.get("seq"), record.get("prevSha256")
    if not (isinstance(seq, str) and seq.isdigit() and len(seq) < 16 and isinstance(prev, str)):
        return None
    return int(seq) + 1, prev


def _lines(data: bytes) -> list[bytes]:
    lines = data.split(b"\n")
    if data.endswith(b"\n"):
        lines.pop()
    return lines


def _score_block(start: int, end: int) -> Stretch | int:
    """The block's stretch, or its number of lines when its first record claims no position."""
    lines = _lines(os.pread(_worker["fd"], end - start, start))
    claims = _claims(lines[0])
    if claims is None:
        return len(lines)
    first_line, assumed = claims
    out: list[bytes] = []
    rescorer = Rescorer(
        _worker["inputs"],
        on_score=lambda d: out.append(execution_line(d)),
        acc=Accumulator.encoded(),
    )
    rescorer.start_stretch(first_line, assumed)
    for raw in lines:
        rescorer.add_line(raw)
    text = b"\n".join(out) + b"\n" if out else b""
    return rescorer.stretch(first_line, assumed, text)


def _blocks(path: Path) -> Iterator[tuple[int, int]]:
    """Byte ranges of about _BLOCK bytes that end at a line end (the last at the file's end)."""
    size = path.stat().st_size
    start = 0
    with path.open("rb", buffering=0) as handle:
        while start < size:
            end = start + _BLOCK
            handle.seek(end)
            while end < size:
                piece = handle.read(_PROBE)
                cut = piece.find(b"\n")
                if not piece or cut >= 0:
                    end = end + cut + 1 if piece else size
                    break
                end += len(piece)
            end = min(end, size)
            yield start, end
            start = end


def stream_parallel(
    rescorer: Rescorer,
    transcript: Path,
    jobs: int,
    write: Callable[[bytes], object],
) -> int:
    """Feed every line of ``transcript`` to ``rescorer`` using ``jobs`` worker processes.

    Returns this process's peak resident memory (getrusage maxrss, KiB) when
    the workers have ended, so a caller can bound the memory of the process
    tree while they ran (that peak plus each worker's).
    """
    context = multiprocessing.get_context("fork")
    pending: deque[tuple[Future[Stretch | int], int, int]] = deque()
    with (
        ProcessPoolExecutor(
            jobs,
            mp_context=context,
            initializer=_start,
            initargs=(rescorer.inputs, str(transcript)),
        ) as pool,
        transcript.open("rb") as reader,
    ):

        def settle() -> None:
            future, start, end = pending.popleft()
            part = future.result()
            if isinstance(part, Stretch) and rescorer.absorb(part):
                write(part.execution_bytes)
                return
            reader.seek(start)
            for raw in _lines(reader.read(end - start)):
                rescorer.add_line(raw)

        for start, end in _blocks(transcript):
            pending.append((pool.submit(_score_block, start, end), start, end))
            if len(pending) >= 2 * jobs:
                settle()
        while pending:
            settle()
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
