"""Owner stamping (graph/owner_stamping.py, `evidencegraph schema apply`) on a graph the release
before ownership loaded: bundles loaded into two workspaces by the loader, then every owner a
load may write removed (tests/support/workspace_loads.py), plus what that release let through
and the loaders now refuse (a mention and a relation's support from a second workspace),
written as it left them."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from graph import owner_stamping
from graph.driver import Graph
from graph.owner_stamping import (
    UNDECIDED_NO_DOCUMENT,
    UNDECIDED_PASSAGES_MISSING,
    UNDECIDED_PATH_ENDS,
    UNDECIDED_SEVERAL_WORKSPACES,
    OwnerStampReport,
    Undecided,
    stamp_owners,
)
from graph.ownership import workspace_key
from tests.conftest import Client, serving
from tests.support.load_helpers import Cli, bundle_line, entity, relation, uid, write_bundle
from tests.support.workspace_loads import as_the_previous_release_left_it, load_into

ALPHA, BETA = "alpha", "beta"
ADA, BABBAGE, CRICK, SHARED = (uid("e", n) for n in (1, 2, 3, 4))
SUPPORTED_IN_ALPHA, PATH_IN_ALPHA, SUPPORTED_FROM_BOTH, PATH_TO_SHARED = (
    uid("r", n) for n in (1, 2, 3, 4)
)

# The second workspace's mention of SHARED, and the second workspace's passage in the support
# of SUPPORTED_FROM_BOTH: the loader of the previous release wrote both (issue 25, findings
# 1 and 3); they are written here as that release left them.
SHARE_ACROSS_WORKSPACES = (
    "MATCH (shared:Entity {id: $shared}), (betaPassage:Chunk {id: $betaPassage})"
    " MERGE (shared)-[:MENTIONED_IN]->(betaPassage)"
    " WITH betaPassage MATCH ()-[r {id: $relation}]->()"
    " SET r.passageIds = r.passageIds + $betaPassage"
)

OWNERS = (
    "MATCH (e:Entity) RETURN 'entity ' + e.id AS id, e.workspace AS owner, e.workspaceKey AS key"
    " UNION ALL MATCH (:Entity)-[r]->(:Entity) WHERE r.id IS NOT NULL"
    " RETURN 'relation ' + r.id AS id, r.workspace AS owner, null AS key"
    " UNION ALL MATCH (c:Chunk) RETURN 'passage ' + c.id AS id, null AS owner,"
    " c.workspaceKey AS key"
)


async def owners(graph: Graph) -> dict[str, tuple[Any, Any]]:
    return {row["id"]: (row["owner"], row["key"]) for row in await graph.read(OWNERS, {})}


async def load_two_workspaces(graph: Graph, folder: Path) -> None:
    alpha = bundle_line(
        1,
        [(1, "Ada wrote notes on the engine."), (2, "Babbage built the engine.")],
        workspace=ALPHA,
        entities=[
            entity(1, "Ada Lovelace", [1]),
            entity(2, "Charles Babbage", [2]),
            entity(4, "Shared Engine", [1], label="Machine"),
        ],
        relations=[
            relation(1, 1, 2, [1]),
            relation(2, 1, 2, [], kind="MET"),
            relation(3, 1, 4, [1], kind="DESIGNED"),
            relation(4, 2, 4, [], kind="BUILT"),
        ],
    )
    beta = bundle_line(
        2,
        [(3, "Crick read about the engine.")],
        workspace=BETA,
        entities=[entity(3, "Francis Crick", [3])],
    )
    await load_into(graph, write_bundle(folder / "two.jsonl", [alpha, beta]), "bundle")
    await as_the_previous_release_left_it(graph)
    await graph.write(
        SHARE_ACROSS_WORKSPACES,
        {"shared": SHARED, "betaPassage": uid("p", 3), "relation": SUPPORTED_FROM_BOTH},
    )


@pytest.fixture
async def loaded(graph: Graph, tmp_path: Path) -> Graph:
    await load_two_workspaces(graph, tmp_path)
    return graph


def undecided(report: OwnerStampReport) -> list[Undecided]:
    return [
        *report.entities.first_undecided,
        *report.relations.first_undecided,
        *report.passages.first_undecided,
    ]


async def test_an_entity_whose_mentions_all_lie_in_one_workspace_gets_it_and_its_key(
    loaded: Graph,
) -> None:
    await stamp_owners(loaded)
    found = await owners(loaded)
    assert found[f"entity {ADA}"] == (ALPHA, workspace_key(ALPHA))
    assert found[f"entity {BABBAGE}"] == (ALPHA, workspace_key(ALPHA))
    assert found[f"entity {CRICK}"] == (BETA, workspace_key(BETA))


async def test_an_entity_mentioned_from_two_workspaces_stays_unowned_and_is_listed(
    loaded: Graph,
) -> None:
    report = await stamp_owners(loaded)
    assert (await owners(loaded))[f"entity {SHARED}"] == (None, None)
    assert report.entities.first_undecided == [
        Undecided(SHARED, UNDECIDED_SEVERAL_WORKSPACES, (ALPHA, BETA))
    ]
    assert (report.entities.stamped, report.entities.undecided) == (3, 1)


async def test_a_relation_supported_in_one_workspace_gets_it_one_supported_from_two_is_listed(
    loaded: Graph,
) -> None:
    report = await stamp_owners(loaded)
    found = await owners(loaded)
    assert found[f"relation {SUPPORTED_IN_ALPHA}"] == (ALPHA, None)
    assert found[f"relation {SUPPORTED_FROM_BOTH}"] == (None, None)
    assert Undecided(SUPPORTED_FROM_BOTH, UNDECIDED_SEVERAL_WORKSPACES, (ALPHA, BETA)) in (
        report.relations.first_undecided
    )


async def test_a_path_takes_the_workspace_owning_both_its_ends_and_otherwise_is_listed(
    loaded: Graph,
) -> None:
    report = await stamp_owners(loaded)
    found = await owners(loaded)
    assert found[f"relation {PATH_IN_ALPHA}"] == (ALPHA, None)
    assert found[f"relation {PATH_TO_SHARED}"] == (None, None)
    assert Undecided(PATH_TO_SHARED, UNDECIDED_PATH_ENDS, (ALPHA,)) in (
        report.relations.first_undecided
    )
    assert (report.relations.stamped, report.relations.undecided) == (2, 2)


async def test_every_passage_gets_its_documents_workspace_key(loaded: Graph) -> None:
    report = await stamp_owners(loaded)
    found = await owners(loaded)
    assert [found[f"passage {uid('p', n)}"][1] for n in (1, 2, 3)] == [
        workspace_key(ALPHA),
        workspace_key(ALPHA),
        workspace_key(BETA),
    ]
    assert (report.passages.stamped, report.passages.undecided) == (3, 0)


async def test_a_mention_of_a_passage_no_document_holds_leaves_the_entity_undecided(
    loaded: Graph,
) -> None:
    await loaded.write(
        "MATCH (e:Entity {id: $entity}) CREATE (e)-[:MENTIONED_IN]->(:Chunk {id: $chunk})",
        {"entity": CRICK, "chunk": uid("p", 9)},
    )
    report = await stamp_owners(loaded)
    assert (await owners(loaded))[f"entity {CRICK}"] == (None, None)
    assert Undecided(CRICK, UNDECIDED_PASSAGES_MISSING, (BETA,)) in report.entities.first_undecided
    assert report.passages.first_undecided == [Undecided(uid("p", 9), UNDECIDED_NO_DOCUMENT, ())]


async def test_an_owner_already_stored_is_kept_and_given_its_key(loaded: Graph) -> None:
    await loaded.write("MATCH (e:Entity {id: $id}) SET e.workspace = 'gamma'", {"id": ADA})
    await stamp_owners(loaded)
    assert (await owners(loaded))[f"entity {ADA}"] == ("gamma", workspace_key("gamma"))


async def test_stamping_twice_leaves_the_same_graph_and_lists_the_same_undecided(
    loaded: Graph,
) -> None:
    first = await stamp_owners(loaded)
    stamped = await owners(loaded)
    second = await stamp_owners(loaded)
    assert await owners(loaded) == stamped
    assert undecided(second) == undecided(first)
    assert (second.entities.stamped, second.relations.stamped, second.passages.stamped) == (
        0,
        0,
        0,
    )


async def test_pages_and_batches_smaller_than_the_graph_stamp_all_of_it(
    loaded: Graph, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(owner_stamping, "PAGE", 1)
    monkeypatch.setattr(owner_stamping, "BATCH", 1)
    seen: list[tuple[str, int, int]] = []
    report = await stamp_owners(loaded, lambda *step: seen.append(step))
    found = await owners(loaded)
    alpha, beta = workspace_key(ALPHA), workspace_key(BETA)
    assert {name: found[f"entity {name}"] for name in (ADA, BABBAGE, CRICK, SHARED)} == {
        ADA: (ALPHA, alpha),
        BABBAGE: (ALPHA, alpha),
        CRICK: (BETA, beta),
        SHARED: (None, None),
    }
    assert [found[f"relation {r}"][0] for r in (SUPPORTED_IN_ALPHA, PATH_IN_ALPHA)] == [ALPHA] * 2
    assert [found[f"passage {uid('p', n)}"][1] for n in (1, 2, 3)] == [alpha, alpha, beta]
    assert [item.id for item in undecided(report)] == [
        SHARED,
        SUPPORTED_FROM_BOTH,
        PATH_TO_SHARED,
    ]
    assert seen == [
        *(("entities", n, 4) for n in range(1, 5)),
        *(("relations", n, 4) for n in range(1, 5)),
        *(("passages", n, 3) for n in range(1, 4)),
    ]


async def everything_read(client: Client) -> list[Any]:
    """Every read of both workspaces and of both together: lookups, walks, searches."""
    entities = [ADA, BABBAGE, CRICK, SHARED]
    passages = [uid("p", n) for n in (1, 2, 3)]
    passage = "{ id text position version document { id workspace } }"
    found = "{ id name labels description evidence(limit: 10) " + passage + " }"
    answers = []
    # A walk's start must be visible in the scope (otherwise the whole answer is an error):
    # each scope walks from the entities its own passages mention.
    walked_in = {ALPHA: [ADA], BETA: [CRICK], None: [ADA, CRICK]}
    for workspace in (ALPHA, BETA, None):
        scope = {"workspaces": [workspace]} if workspace else None
        fields = [f'n{i}: entity(id: "{e}", scope: $s) {found}' for i, e in enumerate(entities)]
        fields += [f'c{i}: passage(id: "{c}", scope: $s) {passage}' for i, c in enumerate(passages)]
        fields += [
            f"{mode}: searchEntities(query: $q, scope: $s, mode: {mode}) {{ entity {found}"
            f" status score lexicalRank semanticRank evidenceIds }}"
            f" {mode}p: searchPassages(query: $q, scope: $s, mode: {mode})"
            f" {{ passage {passage} score lexicalRank semanticRank }}"
            for mode in ("LEXICAL", "SEMANTIC", "HYBRID")
        ]
        fields += [
            f'w{i}d{depth}: walk(entityId: "{e}", scope: $s, depth: {depth})'
            f" {{ nodes {{ id }} truncatedBy edges {{ id type kind source {{ id }}"
            f" target {{ id }} evidenceIds }} }}"
            for i, e in enumerate(walked_in[workspace])
            for depth in (1, 2)
        ]
        query = "query R($q: String!, $s: ScopeInput) { " + " ".join(fields) + " }"
        answers.append(await client.execute(query, {"q": "engine", "s": scope}))
    return answers


async def test_every_read_answers_the_same_after_stamping(neo4j_uri: str, loaded: Graph) -> None:
    async with serving(neo4j_uri, loaded) as client:
        client.embedder.script("engine", [1.0, 0.5, 0.0, 0.25, 0.0, 0.0, 0.0, 0.0])
        before = await everything_read(client)
        assert all("errors" not in answer for answer in before), before
        await stamp_owners(loaded)
        assert await everything_read(client) == before


async def test_schema_apply_stamps_owners_and_reports_what_it_left_undecided(
    loaded: Graph, cli: Cli
) -> None:
    run = await cli.run("schema", "apply")
    assert run.code == 0, run.err
    assert (await owners(loaded))[f"entity {ADA}"] == (ALPHA, workspace_key(ALPHA))
    assert (
        "owners: entities: 3 stamped with their workspace, 0 stale keys fixed, 1 undecided"
        in run.out
    )
    assert f"  undecided {SHARED}: {UNDECIDED_SEVERAL_WORKSPACES} (alpha, beta)" in run.out
    assert "owners: relations: 2 stamped with their workspace, 2 undecided" in run.out
    assert (
        "owners: passages: 3 given their workspace's key, 0 stale keys fixed, 0 undecided"
        in run.out
    )
    assert "owners: entities: 4 of 4 ids checked" in run.err
