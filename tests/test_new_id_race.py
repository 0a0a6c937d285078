"""Two loads of two workspaces racing for one new id (contract §10: "A line that loses a race for
a new id to another workspace's concurrent load is refused with its reason (or retried), never
reported loaded with parts missing"), on the real Neo4j.

Each test forces its interleaving with a hook on the write path, never by hoping for a race:
alpha's whole load between beta's check and beta's job (the check is `stored_references`, the
loader's one read); both jobs staged before either commits (after `jobs.write_entities`); both
jobs asking at once whether an id was taken (around `taken_meanwhile`). Whatever the order, a
line is loaded whole or refused with nothing of it written, and never both lines load one id.
"""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any

import pytest

from graph import jobs, new_id_race
from graph.driver import Graph
from graph.stored_references import stored_references
from tests.support.load_helpers import (
    Cli,
    bundle_line,
    entity,
    loader,
    relation,
    uid,
    version_of,
    write_bundle,
)

# Alpha and beta each create entity 1 (new when both lines are checked), with an entity of
# their own, and a relation at entity 1.
ALPHA = bundle_line(
    1,
    [(1, "Ada met Grace.")],
    workspace="alpha",
    entities=[entity(1, "Ada", [1]), entity(2, "Grace", [1])],
    relations=[relation(1, 1, 2, [1])],
)
BETA = bundle_line(
    2,
    [(2, "Ada met Bo.")],
    workspace="beta",
    entities=[entity(1, "Ada of beta", [2]), entity(3, "Bo", [2])],
    relations=[relation(2, 1, 3, [2])],
)

# What the graph holds of a line's ids: its entities (owner, name, the passages mentioning
# them), its relations (owner, support), its passages and any staging left.
ENTITIES = """
UNWIND $ids AS id MATCH (e:Entity {id: id})
RETURN e.id AS id, e.workspace AS owner, e.name AS name,
       [(e)-[:MENTIONED_IN]->(c:Chunk) | c.id] AS mentions
"""
RELATIONS = """
UNWIND $ids AS id MATCH (:Entity)-[r]->(:Entity) WHERE r.id = id
RETURN r.id AS id, r.workspace AS owner, r.passageIds AS support
"""
CHUNKS = "UNWIND $ids AS id MATCH (c:Chunk {id: id}) RETURN c.id AS id"
STAGING = "MATCH (s) WHERE s:StagedEntity OR s:StagedRelation RETURN count(s) AS n"
CURRENT_VERSION = "MATCH (d:Document {id: $id}) RETURN d.currentVersion AS version"


async def stored(graph: Graph, line: dict[str, Any]) -> dict[str, Any]:
    entities = await graph.read(ENTITIES, {"ids": [e["id"] for e in line["entities"]]})
    relations = await graph.read(RELATIONS, {"ids": [r["id"] for r in line["relations"]]})
    chunks = await graph.read(CHUNKS, {"ids": [p["id"] for p in line["passages"]]})
    return {
        "entities": {row["id"]: dict(row) for row in entities},
        "relations": {row["id"]: dict(row) for row in relations},
        "chunks": {row["id"] for row in chunks},
    }


async def assert_loaded_whole(graph: Graph, line: dict[str, Any]) -> None:
    """Every entity, mention, relation and passage of the line is stored, its workspace's."""
    workspace = line["document"]["workspace"]
    found = await stored(graph, line)
    assert found["chunks"] == {p["id"] for p in line["passages"]}, found
    for item in line["entities"]:
        held = found["entities"].get(item["id"])
        assert held is not None and held["owner"] == workspace, (item["id"], held)
        assert held["name"] == item["name"], held
        assert set(item["mentions"]) <= set(held["mentions"]), (item["id"], held)
    for item in line["relations"]:
        held = found["relations"].get(item["id"])
        assert held is not None and held["owner"] == workspace, (item["id"], held)
        assert set(item["passageIds"]) <= set(held["support"]), (item["id"], held)
    versions = await graph.read(CURRENT_VERSION, {"id": line["document"]["id"]})
    assert [row["version"] >= 1 for row in versions] == [True], versions  # committed


async def assert_nothing_written(graph: Graph, line: dict[str, Any]) -> None:
    """No passage of the line, no entity or relation as its workspace's, no mention of it."""
    workspace = line["document"]["workspace"]
    found = await stored(graph, line)
    assert found["chunks"] == set(), found
    for held in found["entities"].values():
        assert held["owner"] != workspace, held
        assert not set(held["mentions"]) & {p["id"] for p in line["passages"]}, held
    for held in found["relations"].values():
        assert held["owner"] != workspace, held
    versions = await graph.read(CURRENT_VERSION, {"id": line["document"]["id"]})
    assert [row["version"] for row in versions] in ([], [0]), versions  # [0]: never committed


async def assert_no_staging_left(graph: Graph) -> None:
    assert (await graph.read(STAGING, {}))[0]["n"] == 0


async def assert_won_and_lost(graph: Graph, won: dict[str, Any], lost: dict[str, Any]) -> None:
    """The race's outcome: `won` loaded whole, nothing of `lost`, no staging of either left."""
    await assert_loaded_whole(graph, won)
    await assert_nothing_written(graph, lost)
    await assert_no_staging_left(graph)


StoredReferences = Callable[..., Awaitable[Any]]


def run_between_check_and_job(
    monkeypatch: pytest.MonkeyPatch, document_id: str, between: Callable[[Graph], Awaitable[Any]]
) -> list[Any]:
    """Have the load of `document_id`'s line run `between` (with its own graph) right after
    the loader's check read the graph and before the line's job begins; what it returned."""
    real: StoredReferences = stored_references
    results: list[Any] = []
    ran: list[bool] = []  # once only: `between` may load a line of the same document

    async def check_then(graph: Graph, checked_id: str, *rest: Any) -> Any:
        answer = await real(graph, checked_id, *rest)
        if checked_id == document_id and not ran:
            ran.append(True)
            results.append(await between(graph))
        return answer

    monkeypatch.setattr("ingest.loader.stored_references", check_then)
    return results


async def test_a_line_that_loses_a_new_entity_id_to_another_workspaces_load_is_refused_with_exit_code_2(  # noqa: E501
    graph: Graph, cli: Cli, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Beta's line is checked while entity 1 is new; alpha's load then creates it, whole;
    then beta's job writes. Before the rule, beta's line was reported loaded with its Ada,
    her mention and the relation at her missing."""
    alpha = run_between_check_and_job(
        monkeypatch, uid("d", 2), lambda graph: loader(graph).load_line(version_of(ALPHA))
    )
    run = await cli.run("load", str(write_bundle(tmp_path / "beta.jsonl", [BETA])))
    assert alpha == [None], alpha  # alpha's line loaded in between
    assert run.code == 2, (run.out, run.err)
    assert (
        f"line 1: entities[0].id: entity {uid('e', 1)} was stored by another workspace's load "
        "(or, with no owner, by another pipeline) after this line was checked"
    ) in run.err, run.err
    assert "documents: 0 loaded, 0 unchanged, 1 rejected (of 1)" in run.out, run.out
    await assert_won_and_lost(graph, ALPHA, BETA)


async def test_a_line_that_loses_a_new_document_id_to_another_workspaces_load_is_refused(
    graph: Graph, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The same race for the document's own id: before the rule, the job's beginning raised
    out of the whole load."""
    alpha_line = {**ALPHA, "document": {**ALPHA["document"], "id": uid("d", 2)}}
    alpha = run_between_check_and_job(
        monkeypatch, uid("d", 2), lambda graph: loader(graph).load_line(version_of(alpha_line))
    )
    reason = await loader(graph).load_line(version_of(BETA))
    assert alpha == [None], alpha
    assert reason == (
        f"document.id: document {uid('d', 2)} was created by another workspace's load after "
        "this line was checked; a document cannot move: give it another id"
    ), reason
    await assert_loaded_whole(graph, alpha_line)
    await assert_no_staging_left(graph)
    chunks = await graph.read(CHUNKS, {"ids": [uid("p", 2)]})
    assert chunks == []


class Gates:
    """Holds each workspace's load at one point until the test lets it go on."""

    def __init__(self, workspaces: tuple[str, ...]) -> None:
        self.arrived = {workspace: asyncio.Event() for workspace in workspaces}
        self.go = {workspace: asyncio.Event() for workspace in workspaces}

    async def hold(self, workspace: str) -> None:
        self.arrived[workspace].set()
        await self.go[workspace].wait()

    async def all_arrived(self, loads: list[asyncio.Task[str | None]]) -> None:
        """Until every load is held here; a load that ends without passing by fails the test
        at once (it cannot be held any more)."""
        arrived = asyncio.ensure_future(
            asyncio.gather(*(event.wait() for event in self.arrived.values()))
        )
        watched: set[asyncio.Future[Any]] = {arrived, *loads}
        ended, _ = await asyncio.wait(watched, return_when=asyncio.FIRST_COMPLETED)
        if arrived not in ended:
            arrived.cancel()
            results = [load.result() for load in loads if load.done()]
            raise AssertionError(f"a load ended without being held: {results}")


async def test_of_two_loads_staged_at_once_for_one_new_entity_id_one_loads_whole_and_the_other_is_refused(  # noqa: E501
    graph: Graph, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Both jobs have staged entity 1 before either commits; alpha goes on first, then beta.
    Before the rule both were reported loaded, and beta's line had its Ada, her mention and
    its relation missing."""
    gates = Gates(("alpha", "beta"))
    real_write_entities = jobs.write_entities

    async def write_entities_then_hold(graph: Graph, job: jobs.Job, rows: Any) -> None:
        await real_write_entities(graph, job, rows)
        await gates.hold(job.workspace)

    monkeypatch.setattr(jobs, "write_entities", write_entities_then_hold)
    alpha = asyncio.create_task(loader(graph).load_line(version_of(ALPHA)))
    beta = asyncio.create_task(loader(graph).load_line(version_of(BETA)))
    await gates.all_arrived([alpha, beta])
    gates.go["alpha"].set()
    alpha_reason = await alpha
    gates.go["beta"].set()
    beta_reason = await beta

    # Alpha asked while beta's job held the id staged: alpha cannot know whether beta will
    # see it, so it gives way; beta then finds alpha's job failed and its staging gone.
    gave_way = f"entities[0].id: entity {uid('e', 1)} is being written by another workspace's"
    assert alpha_reason is not None and gave_way in alpha_reason, alpha_reason
    assert "load this line again once that load has finished" in alpha_reason
    assert beta_reason is None, beta_reason
    await assert_won_and_lost(graph, BETA, ALPHA)


async def test_two_loads_asking_at_once_whether_a_new_entity_id_was_taken_are_both_refused(
    graph: Graph, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The worst interleaving for the check itself: both jobs ask while the other's staging
    is there. Neither may go on (one would commit with parts missing); both are refused, to
    be loaded again."""
    gates = Gates(("alpha", "beta"))
    asked = Gates(("alpha", "beta"))
    real_taken_meanwhile = new_id_race.taken_meanwhile

    async def ask_together(graph: Graph, job: jobs.Job) -> None:
        await gates.hold(job.workspace)
        try:
            await real_taken_meanwhile(graph, job)
        finally:
            await asked.hold(job.workspace)  # neither job fails before both have asked

    monkeypatch.setattr("ingest.job_writer.taken_meanwhile", ask_together)
    tasks = [
        asyncio.create_task(loader(graph).load_line(version_of(line))) for line in (ALPHA, BETA)
    ]
    await gates.all_arrived(tasks)
    for event in gates.go.values():
        event.set()
    await asked.all_arrived(tasks)
    for event in asked.go.values():
        event.set()
    reasons = await asyncio.gather(*tasks)

    for reason in reasons:
        assert reason is not None and "is being written by another workspace's load" in reason
    for line in (ALPHA, BETA):
        await assert_nothing_written(graph, line)
    await assert_no_staging_left(graph)
    # Loaded again, one after the other: the first is whole, the second refused as before.
    assert await loader(graph).load_line(version_of(ALPHA)) is None
    await assert_loaded_whole(graph, ALPHA)
    reason = await loader(graph).load_line(version_of(BETA))
    assert reason is not None and f"entity {uid('e', 1)} belongs to workspace 'alpha'" in reason
