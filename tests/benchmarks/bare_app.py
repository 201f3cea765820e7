"""The side-by-side baseline of bench_serve_start.py: a FastAPI app with one route, nothing else.

python -m uvicorn bare_app:app --factory --workers 2   (from tests/benchmarks)
"""

from __future__ import annotations

from fastapi import FastAPI


def app() -> FastAPI:
    bare = FastAPI()

    @bare.get("/v1/health")
    async def health() -> dict[str, str]:
        return {"status": "ok"}

    return bare
