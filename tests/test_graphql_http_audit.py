"""graphql-http's own server audit (npm `graphql-http`, `auditServer`), run from Node against
the service served by uvicorn: every MUST and every SHOULD passes. The MAYs are reported, not
required. The counts land in `test-output/graphql-http-audit.json`."""

from __future__ import annotations

import json
from collections import Counter
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.support.node_tools import REPOSITORY, run_script
from tests.support.serving import Served, served_service

OUTPUT = REPOSITORY / "test-output"


@pytest.fixture(scope="module")
def service(neo4j_uri: str, tmp_path_factory: pytest.TempPathFactory) -> Iterator[Served]:
    with served_service(neo4j_uri, tmp_path_factory.mktemp("audit")) as served:
        yield served


def test_graphql_http_audit_passes_every_must_and_should(service: Served) -> None:
    results = run_script("audit.mjs", service.url + "/graphql")
    counts: Counter[tuple[str, str]] = Counter(
        (result["name"].split(" ")[0], result["status"]) for result in results
    )
    summary = {
        level: {status: counts[(level, status)] for status in ("ok", "warn", "error")}
        for level in ("MUST", "SHOULD", "MAY")
    }
    OUTPUT.mkdir(exist_ok=True)
    Path(OUTPUT / "graphql-http-audit.json").write_text(
        json.dumps({"summary": summary, "results": results}, indent=2)
    )
    failed = [
        f"{r['id']} {r['name']}: {r['reason']}"
        for r in results
        if r["status"] != "ok" and not r["name"].startswith("MAY")
    ]
    assert not failed, "\n".join(failed)
    assert summary["MUST"]["ok"] > 0 and summary["SHOULD"]["ok"] > 0, summary
