"""The import's bounds on an Inspect log: zip bombs and oversized logs are refused before expanding.

A ``.eval`` log is a zip archive whose members Inspect expands whole; each
bomb here is a real archive whose member expands to 2 GiB (deflate, as
Python writes, and zstd, as Inspect writes), either declaring that size or
lying about it. The command is run in a subprocess whose peak memory is
measured; the time it takes is printed (tests do not fail on timing).
"""

from __future__ import annotations

import json
import os
import re
import struct
import subprocess
import sys
import zlib
from pathlib import Path

import pytest

from apconform.ap1.inspect import import_inspect_log
from apconform.core.errors import ApconformError

from .conftest import EXAMPLE
from .small_run import seal_small

BIN = Path(sys.executable).parent
GIB2 = 2 << 30
LYING = "member header.json expands beyond the 1,000 bytes its directory entry declares"
ZERO_CRC = 0x4DBDF21C  # CRC-32 of 2 GiB of zero bytes
_MEASURE = (
    "import resource, subprocess, sys, time\n"
    "started = time.perf_counter()\n"
    "done = subprocess.run(sys.argv[1:], capture_output=True, text=True)\n"
    "print(done.returncode, resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss,\n"
    "      time.perf_counter() - started)\n"
    "sys.stdout.write(done.stderr)\n"
)


def _deflated_zeros() -> bytes:
    """A raw deflate stream of 2 GiB of zeros, made from one 64 MiB segment repeated."""
    packer = zlib.compressobj(9, zlib.DEFLATED, -15)
    segment = packer.compress(bytes(64 << 20)) + packer.flush(zlib.Z_FULL_FLUSH)
    return segment * 32 + packer.flush()


def _zstd_zeros() -> bytes:
    """A zstd frame of 2 GiB of zeros: 16,384 run-length blocks of 128 KiB."""
    block = 128 << 10
    header = b"\x28\xb5\x2f\xfd" + bytes([0x00, 7 << 3])  # no content size, 128 KiB window
    blocks = [struct.pack("<I", (1 << 1) | (block << 3))[:3] + b"\x00"] * (GIB2 // block)
    blocks[-1] = struct.pack("<I", 1 | (1 << 1) | (block << 3))[:3] + b"\x00"
    return header + b"".join(blocks)


def _archive(path: Path, method: int, data: bytes, declared: int) -> Path:
    """A one-member zip archive (header.json) of ``data``, declaring ``declared`` bytes expanded."""
    name = b"header.json"
    local = struct.pack(
        "<4sHHHHHIIIHH", b"PK\x03\x04", 20, 0, method, 0, 0, ZERO_CRC, len(data), declared,
        len(name), 0,
    )  # fmt: skip
    central = struct.pack(
        "<4sHHHHHHIIIHHHHHII", b"PK\x01\x02", 20, 20, 0, method, 0, 0, ZERO_CRC, len(data),
        declared, len(name), 0, 0, 0, 0, 0, 0,
    )  # fmt: skip
    end = struct.pack(
        "<4sHHHHIIH", b"PK\x05\x06", 0, 0, 1, 1, len(central) + len(name),
        len(local) + len(name) + len(data), 0,
    )  # fmt: skip
    path.write_bytes(local + name + data + central + name + end)
    return path


@pytest.fixture(scope="module")
def run_dir(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return seal_small(
        tmp_path_factory.mktemp("bounds") / "run", "http://127.0.0.1:9/v1/chat/completions", "m"
    )


def _import(log: Path, run_dir: Path) -> list[str]:
    return [str(BIN / "apconform"), "ap1", "import", "inspect", str(log), "--run-dir", str(run_dir)]


def _measured(log: Path, run_dir: Path) -> tuple[int, int, float, str]:
    """(exit status, peak resident KiB, seconds, stderr) of the import command on ``log``."""
    done = subprocess.run(
        [sys.executable, "-c", _MEASURE, *_import(log, run_dir)],
        capture_output=True,
        text=True,
        timeout=300,
    )
    first, _, rest = done.stdout.partition("\n")
    status, rss, seconds = first.split()
    return int(status), int(rss), float(seconds), rest


@pytest.mark.parametrize(
    ("method", "declared", "message"),
    [
        (8, GIB2, "member header.json expands to 2,147,483,648 bytes; the limit for one member"),
        (8, 1000, "member header.json expands beyond the 1,000 bytes its directory entry declares"),
        (
            93,
            1000,
            "member header.json expands beyond the 1,000 bytes its directory entry declares",
        ),
    ],
    ids=["deflate-declared", "deflate-lying", "zstd-lying"],
)
def test_a_two_gib_bomb_is_refused_before_it_is_expanded(
    run_dir: Path, tmp_path: Path, method: int, declared: int, message: str
) -> None:
    data = _deflated_zeros() if method == 8 else _zstd_zeros()
    bomb = _archive(tmp_path / "bomb.eval", method, data, declared)
    assert bomb.stat().st_size < 3 << 20
    status, rss_kib, seconds, stderr = _measured(bomb, run_dir)
    print(f"\n{bomb.name} ({method=}, {declared=}): refused in {seconds:.2f} s, {rss_kib} KiB")
    assert status == 2
    assert stderr.startswith(f"error AP1-INSPECT-LOG-SIZE: {bomb}: {message}")
    assert rss_kib < 300 * 1024  # the command's whole peak memory, the interpreter included
    assert not (run_dir / "transcript.jsonl").exists()


def test_an_archive_that_claims_too_many_members_is_refused(run_dir: Path, tmp_path: Path) -> None:
    log = tmp_path / "many.eval"
    log.write_bytes(struct.pack("<4sHHHHIIH", b"PK\x05\x06", 0, 0, 65535, 65535, 0, 0, 0))
    with pytest.raises(ApconformError) as small:
        import_inspect_log(log, run_dir)
    assert small.value.code == "AP1-INSPECT-LOG"  # 65,535 members claimed, no directory there
    zip64 = struct.pack("<4sQHHIIQQQQ", b"PK\x06\x06", 44, 45, 45, 0, 0, 200_000, 200_000, 0, 0)
    locator = struct.pack("<4sIQI", b"PK\x06\x07", 0, 0, 1)
    end = struct.pack("<4sHHHHIIH", b"PK\x05\x06", 0, 0, 0xFFFF, 0xFFFF, 0xFFFFFFFF, 0, 0)
    log.write_bytes(zip64 + locator + end)
    with pytest.raises(ApconformError) as many:
        import_inspect_log(log, run_dir)
    assert many.value.code == "AP1-INSPECT-LOG-SIZE"
    assert "the archive holds 200,000 members; the limit is 100,000" in many.value.message


def test_a_json_log_over_its_bound_is_refused_from_its_size(run_dir: Path, tmp_path: Path) -> None:
    log = tmp_path / "huge.json"
    with log.open("wb") as handle:
        handle.truncate(GIB2)  # sparse: 2 GiB on paper, nothing on disk
    status, rss_kib, seconds, stderr = _measured(log, run_dir)
    print(f"\n{log.name}: refused in {seconds:.2f} s, {rss_kib} KiB")
    assert status == 2
    assert stderr.startswith(f"error APC-FILE-TOO-LARGE: {log}: the file is 2,147,483,648 bytes")
    assert rss_kib < 300 * 1024


def _documented_code(when: str) -> str:
    """The code the error table of docs/ap1/inspect.md gives for a row whose text has ``when``."""
    page = (EXAMPLE.parents[1] / "docs" / "ap1" / "inspect.md").read_text(encoding="utf-8")
    rows = re.findall(r"^\| `([A-Z0-9-]+)` \| (.+) \|$", page, flags=re.MULTILINE)
    [code] = [code for code, text in rows if when in text]
    return code


def test_a_missing_log_is_refused_with_the_documented_code(run_dir: Path, tmp_path: Path) -> None:
    missing = tmp_path / "nowhere.eval"
    done = subprocess.run(_import(missing, run_dir), capture_output=True, text=True, timeout=120)
    code = _documented_code("does not exist")
    assert code == "APC-FILE-NOT-FOUND"
    assert done.returncode == 2
    assert done.stderr.startswith(f"error {code}: ")
    with pytest.raises(ApconformError) as caught:  # the library says the same
        import_inspect_log(missing, run_dir)
    assert caught.value.code == code


def test_a_link_to_a_log_is_refused_with_the_documented_code(run_dir: Path, tmp_path: Path) -> None:
    target = tmp_path / "real.json"
    target.write_text(json.dumps({}), encoding="utf-8")
    link = tmp_path / "link.json"
    os.symlink(target, link)
    with pytest.raises(ApconformError) as caught:
        import_inspect_log(link, run_dir)
    assert caught.value.code == _documented_code("symbolic link") == "APC-FILE-LINK"
