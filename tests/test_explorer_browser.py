"""The evidence explorer in a real browser (docs/explorer.md, issue 40): headless Debian
Chromium, driven with the keyboard alone by tests/node/explorer-browser.mjs, against the service
under uvicorn with AUTH_MODE=apikeys and the demo data (data/graphrag-operation-dulce, loaded as
`evidencegraph demo` loads it). Every non-loopback host is blocked. One browser serves the whole
module (tests/node/chromium-server.mjs); each test's scenario connects to it.

What is asserted is what the page showed: the hits and how each was found, the marked words
(whole words, no function word), a "did you mean" offered and not substituted, more results, the
evidence anchored (the sentences naming an entity, both ends of an edge marked, an opened passage
scrolled to its mark), the walk drawn first and listed, coloured by label with a legend that
filters, an expansion placed around its node, the edge's description as headline and tooltip,
the keyboard's way through (Tab counts, arrows, Enter, Escape, focus kept on expand and through
Back), the banner and its fixes, the same view after a reload, a title per view, the favicon,
each view at 390×844 with its 44 px targets and a tap on a node's centre; that each user action
sent one GraphQL operation, by its persisted query hash; that axe-core finds no violation on any
view at either size; that two tokens see different graphs, a hidden entity reading exactly like a
missing one; and that with the service in trusted mode, from the shipped manifests, the journey
works and anything else is refused. The journey's screenshots are written to docs/explorer/.
"""

from __future__ import annotations

import json
import statistics
import subprocess
import sys
import uuid
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest

from api.front_door.trusted_documents import MANIFEST_NAME
from commands.demo_command import load_demo
from graph.driver import Graph
from graph.graph_schema import apply_schema
from tests.conftest import TEST_DIMENSION
from tests.conftest import settings_for_tests as settings_for
from tests.support.graph_builder import GraphBuilder
from tests.support.node_tools import (
    NODE_DIR,
    REPOSITORY,
    chromium,
    explorer_built,
    node,
    npm_packages,
    run_script,
)
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


@pytest.fixture(scope="module")
def shared_browser() -> Iterator[str]:
    """One headless Chromium for the module's scenarios: its endpoint (BROWSER_WS)."""
    chromium()
    npm_packages(NODE_DIR)
    server = subprocess.Popen(
        [node(), "chromium-server.mjs"],
        cwd=NODE_DIR,
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        text=True,
    )
    try:
        assert server.stdout is not None
        endpoint: str = json.loads(server.stdout.readline())["wsEndpoint"]
        yield endpoint
    finally:
        assert server.stdin is not None
        server.stdin.close()
        try:
            server.wait(timeout=60)
        except subprocess.TimeoutExpired:
            server.kill()
            server.wait()


@pytest.fixture
def explorer(neo4j_uri: str, tmp_path: Path) -> Iterator[Served]:
    with serve_explorer(neo4j_uri, tmp_path) as served:
        yield served


async def load_demo_data(neo4j_uri: str) -> str:
    """Load the demo data as `evidencegraph demo` does; the id of the entity it walks from."""
    start = await load_demo(settings_for(neo4j_uri))
    assert start is not None
    return start


def drive(scenario: str, served: Served, shots: Path, browser: str, **env: str) -> dict[str, Any]:
    shots.mkdir(parents=True, exist_ok=True)
    OUTPUT.mkdir(exist_ok=True)
    report: dict[str, Any] = run_script(
        "explorer-browser.mjs",
        env={
            "BASE_URL": served.url,
            "SCENARIO": scenario,
            "SHOTS": str(shots),
            "FAILURE_DIR": str(OUTPUT),
            "BROWSER_WS": browser,
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
    document from callers of one grant), and never twice for one document and token, since the
    service keeps what each grant's callers sent (api/front_door/persisted_queries.py).
    Each action's `operations` is what it sent less those misses."""
    manifest = json.loads(EXPLORER_MANIFEST.read_text())
    ids = {operation["name"]: operation["id"] for operation in manifest["operations"]}
    missed: set[tuple[str, str]] = set()
    texts: list[tuple[str, str]] = []
    for request in report["requests"]:
        assert request["hash"] == ids[request["operationName"]], request
        sent = (str(request.get("authorization")), request["hash"])
        if request["code"] == MISS:
            assert not request["text"] and sent not in texts, request
            missed.add(sent)
        elif request["text"]:
            assert sent in missed, request  # text only after its miss
            missed.remove(sent)
            texts.append(sent)
    assert len(texts) == len(set(texts)), texts
    for action in report["actions"]:
        action["operations"] = [s["operationName"] for s in action["sent"] if s["code"] != MISS]


def no_violations(report: dict[str, Any]) -> None:
    """axe-core found nothing on any view (every impact), and no count disagreed with its noun."""
    assert report["axe"] == {view: [] for view in report["axe"]}, report["axe"]
    assert report["grammar"] == {view: [] for view in report["axe"]}, report["grammar"]


JOURNEY_VIEWS = ("home", "search", "entity", "walk", "edge", "truncated", "passage")


async def test_the_journey_from_a_search_to_a_narrowed_walk_works_with_the_keyboard_alone(
    graph: Graph, neo4j_uri: str, explorer: Served, shared_browser: str
) -> None:
    await load_demo_data(neo4j_uri)
    report = drive("journey", explorer, SCREENSHOTS, shared_browser, TOKEN=DEMO_KEY)
    seen = report["seen"]
    assert report["pageStatus"] == 200 and "default-src 'self'" in report["pageCsp"]
    # The favicon the page names is served, from the build.
    assert seen["favicon"]["status"] == 200 and seen["favicon"]["type"] == "image/svg+xml"
    assert seen["favicon"]["href"].startswith("/explore/assets/favicon-")

    # Authentication is on: the token field, and the code with what to do before it is used.
    assert seen["tokenFieldShown"] and seen["unauthenticated"] == ["UNAUTHENTICATED"]
    assert seen["labelChoices"], "the label filter lists the entity labels"

    # A query of punctuation is checked in the page: said so at the field, nothing sent.
    punctuation = seen["punctuation"]
    assert "at least one letter or digit" in punctuation["problem"]
    assert punctuation["invalid"] == "true" and punctuation["focus"] == "search-query"
    assert "q=" not in punctuation["url"]

    # Whole words only, never a function word: "a drone encounter" marks "drone" (and any word
    # starting with "drone" or "encounter"), never an "a" inside another word.
    for marks in (seen["drone"]["marks"], seen["alienMarks"]):
        assert marks and all(mark["wholeWord"] for mark in marks), marks
    assert {m["text"].lower()[:5] for m in seen["drone"]["marks"]} <= {"drone", "encou"}
    assert all(m["text"].lower().startswith("alien") for m in seen["alienMarks"])

    # Search: hits with status, how each was found in words, evidence naming the hit.
    hits = seen["hits"]
    assert hits and all(hit["status"] in ("SUPPORTED", "UNSUPPORTED") for hit in hits)
    assert all(
        hit["meta"].endswith(
            ("found by name", "found by meaning only", "found by name and by meaning")
        )
        for hit in hits
    ), [hit["meta"] for hit in hits]
    assert not any("score" in hit["meta"] or "rank" in hit["meta"] for hit in hits)
    assert all(doc.endswith("(demo)") for hit in hits for doc in hit["documents"])
    assert "found by name" in seen["searchSummary"]
    # Ten hits, then ten more: one request, the focus on the eleventh.
    assert seen["more"] == {"hits": 20, "focus": "hit:10", "url": seen["more"]["url"]}
    assert "limit=20" in seen["more"]["url"]
    assert report["tabs"]["searchTitleToSecondHit"] == {"toFirst": 1, "secondByArrow": "hit:1"}

    # A misspelt name: the hits are found by meaning only and said to be; the name is offered,
    # not substituted (the view is still the answer to the words typed).
    misspelt = seen["misspelt"]
    assert misspelt["title"] == "Results for “Mercr”"
    assert misspelt["notice"] and "found by meaning only" in misspelt["notice"]
    assert misspelt["suggestions"][0] == "ALEX MERCER"
    assert set(misspelt["found"]) == {"found by meaning only"}
    assert seen["suggested"]["title"] == "Results for “ALEX MERCER”"
    assert seen["suggested"]["found"][0].startswith("found by name")

    # The entity: its evidence, each passage the sentences naming it, its name marked.
    entity = seen["entity"]
    assert entity["title"] == next(h["name"] for h in hits if h["status"] == "SUPPORTED")
    assert entity["passages"] >= 1
    assert all(names for names in entity["named"]), entity["named"]
    if entity["more"]:
        assert entity["passagesAfterMore"] > entity["passages"]

    # The walk: the graph first, drawn and listed, coloured by label, the legend filtering.
    walk = seen["walk"]
    assert walk["title"] == f"Walk from {entity['title']}" and walk["canvases"] >= 1
    assert walk["drawnNodes"] == walk["listedNodes"] > 1
    assert walk["drawnEdges"] == len(walk["edges"]) >= 1
    assert walk["box"]["y"] < 300 and walk["box"]["y"] + walk["box"]["height"] >= 880
    assert walk["box"]["width"] >= 700, walk["box"]
    colours = walk["colours"]
    assert len(set(colours.values())) == len(colours) >= 2, colours
    assert [label.split(" (")[0] for label in walk["legend"]] == sorted(colours), walk["legend"]
    assert "Select an entity or a relation" in walk["hint"]
    assert walk["types"] and all(t.startswith("RELATED_TO") for t in walk["types"])
    legend = seen["legendFilter"]
    assert legend["hidden"] and set(legend["hidden"]) == {legend["group"]}
    assert legend["listedHidden"] == len(legend["hidden"]) and legend["hiddenAfter"] == 0

    # The keyboard: the walk's title is a few Tabs from the graph and from the first relation
    # (109 before the lists were roving), arrows move within a list.
    tabs = report["tabs"]
    assert tabs["walkTitleToGraph"] <= 10 and tabs["walkTitleToFirstRelation"] <= 14, tabs
    assert tabs["arrowToSecondRelation"], tabs
    # The drawing takes the focus: an arrow selects (the panel and the status say which),
    # Escape clears, Enter expands, and the focus stays on the drawing, the node selected.
    keys = seen["canvasKeys"]
    assert keys["focus"] == "walk-graph" and len(keys["selected"]) == 1
    assert keys["heading"] and keys["status"] == f"Selected {keys['heading']}."
    assert keys["afterEscape"] == {"selected": [], "heading": "Details"}
    expanded = seen["expanded"]
    assert "1 expanded" in expanded["summary"]
    assert expanded["listedNodes"] >= walk["listedNodes"]
    assert expanded["focus"] == "walk-graph" and expanded["selected"] == [expanded["parent"]]
    # Placed around the node they came from: every node drawn before stays where it was; the
    # new ones gather nearer to their node than to the start.
    assert expanded["fresh"] >= 1 and expanded["oldMoved"] == 0, expanded
    assert expanded["centroidToParent"] < expanded["centroidToStart"], expanded
    assert statistics.median(expanded["toParent"]) < statistics.median(expanded["toStart"]), (
        expanded
    )

    # An edge says what it asserts: its description is the panel's headline and the tooltip;
    # its evidence is the sentences naming both ends, both marked.
    edge = seen["edge"]
    description = edge["button"].split(": ", 1)[1].rsplit(" (", 1)[0]
    assert edge["heading"] == description and edge["focus"] == "details"
    assert edge["tooltip"].startswith(description) and "ASSERTION" in edge["tooltip"]
    assert edge["kind"].startswith("ASSERTION") and edge["passages"]
    assert any(marks["a"] and marks["b"] for marks in edge["marks"]), edge["marks"]

    # The opened passage: its whole text, both names marked, scrolled to the first mention.
    passage = seen["passage"]
    assert passage["text"] and "Position" in passage["facts"] and "demo" in passage["facts"]
    assert passage["mentions"] and passage["firstMarkInView"] and passage["scrollY"] > 0
    assert {mark.split(":")[0] for mark in passage["marks"]} == {"mark-a", "mark-b"}
    assert "mark=" in passage["url"]
    # Back: the walk with the same edge selected and the focus on the link followed.
    back = seen["back"]
    assert back["url"] == edge["url"] and back["heading"] == edge["heading"]
    assert back["selected"] == [edge["id"]] and back["focus"].startswith("passage:")

    # The banner says which bound cut and offers both fixes.
    truncated = seen["truncated"]
    assert truncated["banner"] and "NODES" in truncated["banner"]
    assert "Raise max nodes to 10" in truncated["banner"]
    assert truncated["drawnNodes"] == 5
    assert seen["typeChoices"] and seen["typeChoices"][0].startswith("RELATED_TO")
    # Narrowing by relation type: one click, carried in the request and the link.
    assert seen["narrowButton"].startswith("Only ")
    relation_type = seen["narrowButton"].removeprefix("Only ").removesuffix(" relations")
    assert seen["narrowedVariables"]["relationTypes"] == [relation_type]
    assert f"types={relation_type}" in seen["narrowed"]["url"]
    assert f"only {relation_type}" in seen["narrowed"]["summary"]
    # The deep link, reloaded, shows the same view; back and forward move between views.
    assert seen["reloaded"] == seen["narrowed"]
    assert seen["back5"]["url"] == truncated["url"]
    assert seen["back5"]["banner"] == truncated["banner"]
    assert seen["forward"] == seen["narrowed"]
    assert "nodes=10" in seen["raised"]["url"] and seen["raised"]["drawnNodes"] > 5

    # Each view has its title.
    titles = report["titles"]
    assert titles["search"] == "“alien” — Search — Evidence explorer"
    assert titles["entity"] == f"{entity['title']} — Entity — Evidence explorer"
    assert titles["walk"] == f"Walk from {entity['title']} — Evidence explorer"
    assert titles["passage"] == f"{passage['title']} — Evidence explorer"

    # A phone: the graph on screen below the header, every control a 44 px target, and a tap
    # on a node's centre opens that node in the sheet.
    phone = seen["phone"]
    assert phone["box"]["y"] < 400 and phone["box"]["height"] >= 300, phone["box"]
    assert phone["heading"] == phone["tapped"]["name"] and phone["sheet"]["open"]
    assert report["small"] == {view: [] for view in JOURNEY_VIEWS}, report["small"]

    # Each user action sent one GraphQL operation; the edge's evidence came with the walk, and
    # the punctuation sent none. The service starts with no persisted query: the first time it
    # meets each document, the action's one operation took two requests, the hash (a miss) and
    # then the text with it.
    for action in report["actions"]:
        if action["name"] in ("edge evidence", "punctuation", "back to the edge"):
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
    no_violations(report)
    assert set(report["axe"]) == {*JOURNEY_VIEWS, *(f"{view} (phone)" for view in JOURNEY_VIEWS)}
    for name in (*JOURNEY_VIEWS[1:], "expanded", *(f"{view}-phone" for view in JOURNEY_VIEWS)):
        assert (SCREENSHOTS / f"{name}.png").stat().st_size > 10_000, name


async def test_two_tokens_see_different_graphs_and_a_hidden_entity_reads_as_missing(
    graph: Graph,
    builder: GraphBuilder,
    neo4j_uri: str,
    explorer: Served,
    tmp_path: Path,
    shared_browser: str,
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
        shared_browser,
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
    assert first["grantedLegend"] == second["grantedLegend"] == ["Workspaces you may read"]
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
    no_violations(report)


async def test_a_walk_of_500_nodes_is_drawn_and_answers_a_click(
    graph: Graph, builder: GraphBuilder, neo4j_uri: str, explorer: Served, shared_browser: str
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
        "large",
        explorer,
        OUTPUT / "explorer",
        shared_browser,
        TOKEN=ACME_KEY,
        START=builder.entity_id("Hub"),
    )
    large = report["seen"]["large"]
    assert large["nodes"] == 500 and large["edges"] == 499
    assert large["detailsHeading"] == "Hub"
    # Drawn at about a fifth of life size, a PATH still reads as dashed: dashes of 4 px or
    # more, gaps of 2.5 (6 and 4 model pixels would be 1.3 and 0.9).
    dash, gap = large["pathDashPx"]
    assert dash >= 4 and gap >= 2.5, large["pathDashPx"]
    # Clicks on the hub, the first choosing it, change no element's bounds (the press draws no
    # overlay, the halo is a ring the node always has), so cytoscape does not work out its 499
    # edges again before it draws.
    assert large["boundsChangedByClicks"] == []
    # Counts agree with their nouns: one passage, no passages, five hundred entities.
    assert large["summary"] == "500 entities, 499 relations"
    assert large["edgeCounts"] == {"ASSERTION, 1 passage": 249, "PATH, 0 passages": 250}
    assert report["grammar"] == {"walk 500": []}, report["grammar"]
    OUTPUT.mkdir(exist_ok=True)
    (OUTPUT / "explorer-500.json").write_text(json.dumps(large, indent=2))


async def test_in_trusted_mode_the_journey_runs_from_the_shipped_manifests_and_nothing_else_runs(
    graph: Graph, neo4j_uri: str, tmp_path: Path, shared_browser: str
) -> None:
    """GRAPHQL_TRUSTED_DOCUMENTS names the examples' manifest and the explorer's, as
    docs/operations.md tells an operator to: the explorer's journey works, every request by
    its hash alone and answered at once; the examples' documents run too; a document in
    neither manifest, even one a character away from the explorer's, is refused."""
    await load_demo_data(neo4j_uri)
    manifests = f"{EXAMPLES_MANIFEST},{EXPLORER_MANIFEST}"
    with serve_explorer(neo4j_uri, tmp_path, GRAPHQL_TRUSTED_DOCUMENTS=manifests) as served:
        report = drive(
            "journey", served, tmp_path / "shots", shared_browser, TOKEN=DEMO_KEY, PHONE="no"
        )
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
