"""`/healthz` (the process is alive) and `/readyz` (Neo4j answers, the embedder is loaded, the
graph's start checks have passed: api/graph_checks.py, and every statement requests send is
planned: api/plan_readiness.py)."""

from __future__ import annotations

import logging

from starlette.requests import Request
from starlette.responses import JSONResponse

from api.services import Services
from contract.errors import BackendUnavailable

log = logging.getLogger(__name__)


async def healthz(request: Request) -> JSONResponse:
    return JSONResponse({"status": "ok"})


async def readyz(request: Request) -> JSONResponse:
    services: Services = request.app.state.services
    checks: dict[str, str] = {}
    try:
        await services.graph.driver.verify_connectivity()
        checks["neo4j"] = "ok"
    except Exception as error:  # any failure means "not ready"; the reason goes to the log
        log.warning("readiness: Neo4j unreachable: %s", error)
        checks["neo4j"] = "unreachable"
    checks["embedder"] = "ok" if services.query_embedder is not None else "not loaded"
    if services.graph_checks is not None:
        checks["graph"] = "not checked"
        if checks["neo4j"] == "ok":
            try:
                await services.graph_checks.ensure()  # runs them if Neo4j was down until now
                checks["graph"] = "ok"
            except BackendUnavailable:
                pass
    if services.plan_readiness is not None:
        checks["plans"] = services.plan_readiness.state
    ready = all(value == "ok" for value in checks.values())
    return JSONResponse(
        {"status": "ready" if ready else "not ready", "checks": checks},
        status_code=200 if ready else 503,
    )
