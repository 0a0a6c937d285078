"""The evidence explorer in a real browser (docs/explorer.md): headless Debian Chromium, driven
with the keyboard alone by tests/node/explorer-browser.mjs, against the service under uvicorn
with AUTH_MODE=apikeys and the demo data (data/graphrag-operation-dulce, loaded as
`evidencegraph demo` loads it). Every non-loopback host is blocked.

What is asserted is what the page showed: the hits and their status, the marked words, the
evidence, the walk drawn and listed, the banner and its fixes, the same view after a reload;
that each user action sent one GraphQL operation, by its persisted query hash; that axe-core
finds no serious or critical violation on any view; that two tokens see different graphs, a
hidden entity reading exactly like a missing one; and that with the service in trusted mode,
from the shipped manifests, the journey works and anything else is refused. The journey's
screenshots are written to docs/explorer/.
"""

from __future__ import annotations

import json
import sys
import uuid
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest

from api.persisted_queries import MANIFEST_NAME
from commands.demo_command import load_demo
from graph.driver import Graph
from graph.graph_schema import apply_schema
from tests.conftest import TEST_DIMENSION
from tests.conftest import settings_for_tests as settings_for
from tests.support.graph_builder import GraphBuilder
from tests.support.node_tools import REPOSITORY, chromium, explorer_built, run_script
from tests.support.serving import LOOPBACK, Served, served_process, service_environment

SCREENSHOTS = REPOSITORY / "docs" / "explorer"
OUTPUT = REPOSITORY / "test-output"
DEMO_KEY = "demo-reader-5b1d7c3e9a2f4b6d8e0c"
ACME_KEY = "acme-reader-9e7c5a3b1d2f4e6a8c0b"
EXPLORER_MANIFEST = REPOSITORY / "explorer" / MANIFEST_NAME
EXAMPLES_MANIFEST = REPOSITORY / "examples" / MANIFEST_NAME
MISS = "PERSISTED_QUERY_NOT_FOUND"


def serve_explorer(neo4j_uri: str, log_dir: Path, **settings: str) -> Any:
    """The service with the explorer, AUTH_MODE=apikeys: DEMO_KEY reads workspace demo,
    ACME_KEY workspace acme; `settings` added to its environment."""
    explorer_built()
    keys = log_dir / "keys.json"
    keys.write_text(json.dumps({DEMO_KEY: ["demo"], ACME_KEY: ["acme"]}))
    command = [
        sys.executable,
        "-m",
        "uvicorn",
        "--factory",
        "tests.support.served_app:create_test_app",
        "--host",
        LOOPBACK,
        "--port",
        "{port}",
        "--log-level",
        "warning",
    ]
    environment = {
        **service_environment(neo4j_uri),
        "AUTH_MODE": "apikeys",
        "AUTH_API_KEYS_FILE": str(keys),
        "EXPLORER_ENABLED": "true",
        # Six test sessions share two cores: a slow answer is the machine, not the explorer.
        "NEO4J_QUERY_TIMEOUT_SECONDS": "120",
        "REQUEST_TIMEOUT_SECONDS": "150",
        **settings,
    }
    return served_process(
        command,
        name="evidencegraph",
        cwd=REPOSITORY,
        env=environment,
        probe_path="/healthz",
        log_dir=log_dir,
    )


@pytest.fixture
def explorer(neo4j_uri: str, tmp_path: Path) -> Iterator[Served]:
    with serve_explorer(neo4j_uri, tmp_path) as served:
        yield served


async def load_demo_data(neo4j_uri: str) -> str:
    """Load the demo data as `evidencegraph demo` does; the id of the entity it walks from."""
    start = await load_demo(settings_for(neo4j_uri))
    assert start is not None
    return start


def drive(scenario: str, served: Served, shots: Path, **env: str) -> dict[str, Any]:
    chromium()
    shots.mkdir(parents=True, exist_ok=True)
    OUTPUT.mkdir(exist_ok=True)
    report: dict[str, Any] = run_script(
        "explorer-browser.mjs",
        env={
            "BASE_URL": served.url,
            "SCENARIO": scenario,
            "SHOTS": str(shots),
            "FAILURE_DIR": str(OUTPUT),
            **env,
        },
        timeout=1800,
    )
    assert "failure" not in report, (report.get("failure"), report.get("failurePage"))
    # Nothing but loopback was attempted, nothing broke the policy or threw.
    assert report["blocked"] == [] and report["csp"] == [], report
    assert report["pageErrors"] == [], report["pageErrors"]
    sent_by_hash(report)
    return report


def sent_by_hash(report: dict[str, Any]) -> None:
    """Every request named its operation by the build's hash (the id in the explorer's
    manifest); the text went only after the service answered that hash
    PERSISTED_QUERY_NOT_FOUND (automatic persisted queries: the first time a process meets a
    document), and never twice for one document, since the service keeps what it was sent.
    Each action's `operations` is what it sent less those misses."""
    manifest = json.loads(EXPLORER_MANIFEST.read_text())
    ids = {operation["name"]: operation["id"] for operation in manifest["operations"]}
    missed: set[str] = set()
    texts: list[str] = []
    for request in report["requests"]:
        assert request["hash"] == ids[request["operationName"]], request
        if request["code"] == MISS:
            assert not request["text"] and request["hash"] not in texts, request
            missed.add(request["hash"])
        elif request["text"]:
            assert request["hash"] in missed, request  # text only after its miss
            missed.remove(request["hash"])
            texts.append(request["hash"])
    assert len(texts) == len(set(texts)), texts
    for action in report["actions"]:
        action["operations"] = [s["operationName"] for s in action["sent"] if s["code"] != MISS]


def serious(report: dict[str, Any]) -> dict[str, list[Any]]:
    return {
        view: [v for v in violations if v["impact"] in ("serious", "critical")]
        for view, violations in report["axe"].items()
    }


async def test_the_journey_from_a_search_to_a_narrowed_walk_works_with_the_keyboard_alone(
    graph: Graph, neo4j_uri: str, explorer: Served
) -> None:
    await load_demo_data(neo4j_uri)
    report = drive("journey", explorer, SCREENSHOTS, TOKEN=DEMO_KEY)
    seen = report["seen"]
    assert report["pageStatus"] == 200 and "default-src 'self'" in report["pageCsp"]

    # Authentication is on: the token field, and the code with what to do before it is used.
    assert seen["tokenFieldShown"] and seen["unauthenticated"] == ["UNAUTHENTICATED"]
    assert seen["labelChoices"], "the label filter lists the entity labels"

    # Search: hits with status, ranks, evidence with the query's word marked and its document.
    hits = seen["hits"]
    assert hits and all(hit["status"] in ("SUPPORTED", "UNSUPPORTED") for hit in hits)
    assert all("score" in hit["meta"] and "rank" in hit["meta"] for hit in hits)
    marked = [mark.lower() for hit in hits for mark in hit["marks"]]
    assert marked and set(marked) == {"alien"}, marked
    assert all(doc.endswith("(demo)") for hit in hits for doc in hit["documents"])

    # The entity: its evidence, and more of it.
    entity = seen["entity"]
    assert entity["title"] == next(h["name"] for h in hits if h["status"] == "SUPPORTED")
    assert entity["passages"] >= 1
    if entity["more"]:
        assert entity["passagesAfterMore"] > entity["passages"]

    # The walk: drawn on a canvas and listed, the same nodes in both.
    walk = seen["walk"]
    assert walk["title"] == f"Walk from {entity['title']}" and walk["canvases"] >= 1
    assert walk["drawnNodes"] == walk["listedNodes"] > 1
    assert walk["drawnEdges"] == len(walk["edges"]) >= 1
    assert all("ASSERTION" in edge or "PATH" in edge for edge in walk["edges"])
    # Expanding a node merged its walk into the view.
    expanded = seen["expanded"]
    assert "1 expanded" in expanded["summary"]
    assert expanded["listedNodes"] >= walk["listedNodes"]
    # An edge's evidence: the passages that state it.
    edge = seen["edge"]
    assert edge["kind"].startswith(("ASSERTION", "PATH"))
    if edge["kind"].startswith("ASSERTION"):
        assert edge["passages"]

    # The banner says which bound cut and offers both fixes.
    truncated = seen["truncated"]
    assert truncated["banner"] and "NODES" in truncated["banner"]
    assert "Raise max nodes to 10" in truncated["banner"]
    assert truncated["drawnNodes"] == 5
    # Narrowing by relation type: one click, carried in the request and the link.
    assert seen["narrowButton"].startswith("Only ")
    relation_type = seen["narrowButton"].removeprefix("Only ").removesuffix(" relations")
    assert seen["narrowedVariables"]["relationTypes"] == [relation_type]
    assert f"types={relation_type}" in seen["narrowed"]["url"]
    assert f"only {relation_type}" in seen["narrowed"]["summary"]
    # The deep link, reloaded, shows the same view; back and forward move between views.
    assert seen["reloaded"] == seen["narrowed"]
    assert seen["back"]["url"] == truncated["url"] and seen["back"]["banner"] == truncated["banner"]
    assert seen["forward"] == seen["narrowed"]
    assert "nodes=10" in seen["raised"]["url"] and seen["raised"]["drawnNodes"] > 5

    # A passage: text, position, document, and the entities it mentions.
    passage = seen["passage"]
    assert passage["text"] and "Position" in passage["facts"] and "demo" in passage["facts"]
    assert passage["mentions"]

    # Each user action sent one GraphQL operation; the edge's evidence came with the walk. The
    # service starts with no persisted query: the first time it meets each document, the
    # action's one operation took two requests, the hash (a miss) and then the text with it.
    for action in report["actions"]:
        if action["name"] == "edge evidence":
            assert action["operations"] == [], action
        elif action["name"] == "reload":  # the header's choices, then the view
            assert action["operations"] == ["ExplorerChoices", "ExplorerWalk"], action
        else:
            assert len(action["operations"]) == 1, action
    missed = [r["operationName"] for r in report["requests"] if r["code"] == MISS]
    assert missed and len(missed) == len(set(missed)), missed
    # The token went as a bearer header, never into a link.
    assert all(r["authorization"] == f"Bearer {DEMO_KEY}" for r in report["requests"][1:])
    assert all(DEMO_KEY not in url for url in seen["urls"])
    assert serious(report) == {view: [] for view in report["axe"]}, report["axe"]
    assert report["grammar"] == {view: [] for view in report["axe"]}, report["grammar"]
    for name in ("search", "entity", "walk", "edge", "truncated", "passage"):
        assert (SCREENSHOTS / f"{name}.png").stat().st_size > 10_000, name


async def test_two_tokens_see_different_graphs_and_a_hidden_entity_reads_as_missing(
    graph: Graph, builder: GraphBuilder, neo4j_uri: str, explorer: Served, tmp_path: Path
) -> None:
    demo_entity = await load_demo_data(neo4j_uri)
    await builder.version(
        "acme",
        [
            "An alien signal was logged by the Globex observatory.",
            "The Globex observatory sits on Mount Acme.",
        ],
        title="Globex observatory log",
        mentions={"Alien Signal": [0], "Globex Observatory": [0, 1], "Mount Acme": [1]},
        relations=[
            ("Alien Signal", "LOGGED_BY", "Globex Observatory", [0]),
            ("Globex Observatory", "SITS_ON", "Mount Acme", [1]),
        ],
    )
    await apply_schema(graph, TEST_DIMENSION)
    missing = str(uuid.uuid4())
    report = drive(
        "scope",
        explorer,
        tmp_path,
        TOKEN=DEMO_KEY,
        OTHER_TOKEN=ACME_KEY,
        HIDDEN=demo_entity,
        MISSING=missing,
        UNINDEXED="Unindexed",
    )
    seen = report["seen"]
    first, second = seen["first"], seen["second"]
    # Each token's scope panel lists its own grant, and a choice made with the keyboard narrows
    # the view (one request) and is kept in the link.
    assert first["granted"] == ["demo"] and second["granted"] == ["acme"]
    assert first["grantedLegend"] == second["grantedLegend"] == ["Workspaces your token grants"]
    for who, workspace in ((first, "demo"), (second, "acme")):
        assert f"ws={workspace}" in who["scopedUrl"] and who["checkedAfter"] == [workspace]
        assert who["scopedHits"] == who["hits"]
    scoped = [a for a in report["actions"] if a["name"].startswith("scope ")]
    assert [a["operations"] for a in scoped] == [["ExplorerSearch"], ["ExplorerSearch"]], scoped
    assert first["hits"] and second["hits"] == ["Alien Signal"]
    assert not set(first["hits"]) & set(second["hits"])
    assert all(doc.endswith("(demo)") for doc in first["documents"])
    assert second["documents"] == ["Globex observatory log (acme)"]
    assert sorted(second["walkNodes"]) == ["Alien Signal", "Globex Observatory"]
    assert not set(first["walkNodes"]) & set(second["walkNodes"])
    # Hidden and missing read the same, as an entity and as a walk.
    assert "Entity not found" in seen["hidden"]
    assert seen["hidden"] == seen["missing"]
    assert "UNAVAILABLE" in seen["hiddenWalk"]
    assert seen["hiddenWalk"].replace(demo_entity, "ID") == seen["missingWalk"].replace(
        missing, "ID"
    )
    # Errors show their code and what to do.
    assert "FORBIDDEN" in seen["forbidden"] and "demo" in seen["forbidden"]
    assert "INDEX_NOT_READY" in seen["indexNotReady"] and "Unindexed" in seen["indexNotReady"]
    assert "BACKEND_UNAVAILABLE" in seen["backendUnavailable"]
    assert "Retry" in seen["backendUnavailable"]
    assert seen["afterRetry"] == ["Alien Signal"]
    retry = next(a for a in report["actions"] if a["name"] == "retry")
    assert retry["operations"] == ["ExplorerSearch"]
    assert serious(report) == {view: [] for view in report["axe"]}, report["axe"]
    assert report["grammar"] == {view: [] for view in report["axe"]}, report["grammar"]


async def test_a_walk_of_500_nodes_is_drawn_and_answers_a_click(
    graph: Graph, builder: GraphBuilder, neo4j_uri: str, explorer: Served
) -> None:
    spokes = [f"Station {number:03}" for number in range(499)]
    await builder.version(
        "acme",
        ["The hub relays every station."] + [f"{name} reports to the hub." for name in spokes],
        title="Relay network",
        mentions={"Hub": [0], **{name: [i + 1] for i, name in enumerate(spokes)}},
        relations=[
            ("Hub", "RELAYS" if i % 2 else "LINKED", name, [i + 1] if i % 2 else None)
            for i, name in enumerate(spokes)
        ],
    )
    await apply_schema(graph, TEST_DIMENSION)
    report = drive(
        "large", explorer, OUTPUT / "explorer", TOKEN=ACME_KEY, START=builder.entity_id("Hub")
    )
    large = report["seen"]["large"]
    assert large["nodes"] == 500 and large["edges"] == 499
    assert large["detailsHeading"] == "Hub"
    # Counts agree with their nouns: one passage, no passages, five hundred entities.
    assert large["summary"] == "500 entities, 499 relations"
    assert large["edgeCounts"] == {"ASSERTION, 1 passage": 249, "PATH, 0 passages": 250}
    assert report["grammar"] == {"walk 500": []}, report["grammar"]
    OUTPUT.mkdir(exist_ok=True)
    (OUTPUT / "explorer-500.json").write_text(json.dumps(large, indent=2))


async def test_in_trusted_mode_the_journey_runs_from_the_shipped_manifests_and_nothing_else_runs(
    graph: Graph, neo4j_uri: str, tmp_path: Path
) -> None:
    """GRAPHQL_TRUSTED_DOCUMENTS names the examples' manifest and the explorer's, as
    docs/operations.md tells an operator to: the explorer's journey works, every request by
    its hash alone and answered at once; the examples' documents run too; a document in
    neither manifest, even one a character away from the explorer's, is refused."""
    await load_demo_data(neo4j_uri)
    manifests = f"{EXAMPLES_MANIFEST},{EXPLORER_MANIFEST}"
    with serve_explorer(neo4j_uri, tmp_path, GRAPHQL_TRUSTED_DOCUMENTS=manifests) as served:
        report = drive("journey", served, tmp_path / "shots", TOKEN=DEMO_KEY)
        headers = {
            "authorization": f"Bearer {DEMO_KEY}",
            "accept": "application/graphql-response+json",
        }
        explorer = json.loads(EXPLORER_MANIFEST.read_text())["operations"]
        choices = next(o for o in explorer if o["name"] == "ExplorerChoices")["body"]
        examples = json.loads(EXAMPLES_MANIFEST.read_text())["operations"]
        search_example = next(o for o in examples if o["name"] == "SearchWithEvidence")
        async with httpx.AsyncClient(base_url=served.url, headers=headers) as http:
            answers = {
                "not in a manifest": await http.post(
                    "/graphql", json={"query": "{ entityLabels { label } }"}
                ),
                "a field taken away": await http.post(
                    "/graphql", json={"query": choices.replace("    vectorIndex\n", "")}
                ),
                "an example by hash": await http.post(
                    "/graphql",
                    json={
                        "variables": {"query": "alien"},
                        "extensions": {
                            "persistedQuery": {"version": 1, "sha256Hash": search_example["id"]}
                        },
                    },
                ),
            }
    seen = report["seen"]
    # The journey: search, entity, walk, passage, as in the service's default mode.
    assert seen["hits"] and seen["entity"]["passages"] >= 1
    assert seen["walk"]["drawnNodes"] == seen["walk"]["listedNodes"] > 1
    assert seen["truncated"]["drawnNodes"] == 5 and seen["passage"]["text"]
    # Every request was the hash alone, known at once: no miss, no text, no refusal.
    assert report["requests"] and not any(r["text"] for r in report["requests"])
    codes = {r["code"] for r in report["requests"]}
    assert codes <= {None, "UNAUTHENTICATED"}, codes
    for action in report["actions"]:
        assert action["requests"] == action["operations"], action
    for name in ("not in a manifest", "a field taken away"):
        assert answers[name].status_code == 400, name
        assert answers[name].json()["errors"][0]["extensions"]["code"] == "QUERY_NOT_IN_SAFELIST"
    example = answers["an example by hash"].json()
    assert "errors" not in example and example["data"]["searchEntities"], example
