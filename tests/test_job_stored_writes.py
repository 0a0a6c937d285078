"""contract §2: "Everything a job writes stays invisible until it commits and is removed by
recovery, including what it adds to things already stored: entity names, descriptions,
embeddings and labels, mentions of stored passages, relations between stored entities."

Each test stores a committed world, starts a job that writes one kind of change to it, and
checks that no answer changes while the job runs, that `jobs recover` leaves the world as it
was, and (on a second job) that the commit shows the change.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from datetime import timedelta
from typing import Any

from contract.scope import Scope
from graph import entity_search, jobs, lookups, walk
from graph.driver import Graph
from graph.graph_schema import apply_schema, vector_index_name
from graph.lexical_index import fulltext_index_name
from retrieval.lexical_rule import lexical_request
from retrieval.walk_bookkeeping import WalkBounds
from tests.support.graph_builder import GraphBuilder, Version, new_id, unit_vector

SCOPE = Scope(("acme",))
DIMENSION = 8
# No entity of the builder points this way (its vectors lie along one axis).
QUERY_VECTOR = [0.5, 0.5, 0.5, 0.5, 0.0, 0.0, 0.0, 0.2]


async def answers(graph: Graph, builder: GraphBuilder, query: str) -> dict[str, Any]:
    """What readers see of the stored world: Ada by id with her evidence, a hybrid search for
    `query` along QUERY_VECTOR, and a walk from Ada."""
    ada = builder.entity_id("Ada")
    [entity] = await lookups.entities_by_id(graph, SCOPE, [ada])
    [evidence] = await lookups.evidence_by_entity_id(graph, SCOPE, [(ada, 10)])
    searched = await entity_search.search_entities(
        graph,
        SCOPE,
        targets=[
            entity_search.SearchTarget(label, fulltext_index_name(label), vector_index_name(label))
            for label in ("Person", "Scientist")
        ],
        mode="HYBRID",
        lexical=lexical_request(query),
        vector=QUERY_VECTOR,
        limit=10,
        support_limit=10,
        rrf_k=60,
        lexical_k=20,
        semantic_k=20,
        cap_k=1000,
        with_text=False,
    )
    hits = searched.records
    found = await walk.walk(
        graph,
        SCOPE,
        walk.WalkRequest(
            start_id=ada,
            depth=1,
            relation_types=None,
            bounds=WalkBounds(max_nodes=50, max_edges=100, max_candidates=500),
            graph_owned_types=(),
        ),
    )
    return {
        "entity": entity,
        "evidence": [p.id for p in evidence],
        "hits": [
            (h.entity.id, h.supported, h.evidence_ids, h.lexical_rank, h.semantic_rank)
            for h in hits
        ],
        "walk": None
        if found is None
        else [
            (e.type, e.kind, e.source_id, e.target_id, e.evidence_ids, e.description, e.weight)
            for e, _ in found.edges
        ],
    }


async def stored_world(graph: Graph, builder: GraphBuilder) -> tuple[Version, Version]:
    """Ada and Grace in one document (Ada KNOWS Grace on passage 0); Bo in another."""
    first = await builder.version(
        "acme",
        ["Ada met Grace.", "Grace alone."],
        mentions={"Ada": [0], "Grace": [0, 1]},
        descriptions={"Ada": "a mathematician"},
        relations=[("Ada", "KNOWS", "Grace", [0])],
        labels={"Ada": ["Person"], "Grace": ["Person"], "Scientist": ["Scientist"]},
        # Ada far from QUERY_VECTOR (cosine 0), so only the re-embedding job can make her its
        # best match; by their names' default axes she would tie with Bo, broken by random ids.
        vectors={"Ada": unit_vector(DIMENSION, 5)},
    )
    other = await builder.version("acme", ["Bo was here."], mentions={"Bo": [0]})
    await apply_schema(graph, DIMENSION, labels=["Person", "Scientist"])
    return first, other


Write = Callable[[Graph, jobs.Job, GraphBuilder, Version, Version], Awaitable[None]]


async def job_writing(
    graph: Graph, builder: GraphBuilder, write: Write, first: Version, other: Version
) -> jobs.Job:
    """A RUNNING job of a third document that writes one passage and then `write`."""
    job = await jobs.begin_job(graph, new_id(), "acme")
    await jobs.write_passages(graph, job, [{"id": new_id(), "position": 0, "text": "new"}])
    await write(graph, job, builder, first, other)
    return job


async def assert_invisible_until_commit(
    graph: Graph, builder: GraphBuilder, write: Write, query: str
) -> tuple[dict[str, Any], dict[str, Any]]:
    """Returns the answers before and after a second such job commits."""
    first, other = await stored_world(graph, builder)
    before = await answers(graph, builder, query)
    job = await job_writing(graph, builder, write, first, other)
    assert await answers(graph, builder, query) == before, "a RUNNING job changed an answer"
    assert await jobs.recover_stale_jobs(graph, timedelta(seconds=0)) == [job.id]
    assert await answers(graph, builder, query) == before, "recovery left part of the job"
    leftovers = await graph.read(
        "MATCH (n) WHERE n.jobId = $id OR n.stagedJobId = $id RETURN count(n) AS n", {"id": job.id}
    )
    assert leftovers[0]["n"] == 0
    committed = await job_writing(graph, builder, write, first, other)
    await jobs.commit_job(graph, committed)
    return before, await answers(graph, builder, query)


def entity_row(builder: GraphBuilder, **changes: Any) -> dict[str, Any]:
    row: dict[str, Any] = {
        "id": builder.entity_id("Ada"),
        "labels": ["Person"],
        "name": "Ada",
        "description": None,
        "embedding": None,
        "mentions": [],
    }
    return {**row, **changes}


async def test_a_running_job_renaming_a_stored_entity_changes_nothing_until_it_commits(
    graph: Graph, builder: GraphBuilder
) -> None:
    async def rename(graph: Graph, job: jobs.Job, builder: GraphBuilder, *_: Version) -> None:
        await jobs.write_entities(graph, job, [entity_row(builder, name="Countess Lovelace")])

    before, after = await assert_invisible_until_commit(graph, builder, rename, "Countess")
    assert before["entity"].name == "Ada" and after["entity"].name == "Countess Lovelace"
    assert [hit for hit in before["hits"] if hit[3] is not None] == []
    assert [hit[0] for hit in after["hits"] if hit[3] == 1] == [builder.entity_id("Ada")]


async def test_a_running_job_describing_a_stored_entity_changes_nothing_until_it_commits(
    graph: Graph, builder: GraphBuilder
) -> None:
    async def describe(graph: Graph, job: jobs.Job, builder: GraphBuilder, *_: Version) -> None:
        await jobs.write_entities(graph, job, [entity_row(builder, description="a poet")])

    before, after = await assert_invisible_until_commit(graph, builder, describe, "Ada")
    assert (before["entity"].description, after["entity"].description) == (
        "a mathematician",
        "a poet",
    )


async def test_a_running_job_re_embedding_a_stored_entity_changes_nothing_until_it_commits(
    graph: Graph, builder: GraphBuilder
) -> None:
    async def embed(graph: Graph, job: jobs.Job, builder: GraphBuilder, *_: Version) -> None:
        # The query's own vector: committed, this makes Ada the best semantic match.
        await jobs.write_entities(graph, job, [entity_row(builder, embedding=QUERY_VECTOR)])

    before, after = await assert_invisible_until_commit(graph, builder, embed, "Grace")
    ada = builder.entity_id("Ada")
    assert ada not in [hit[0] for hit in before["hits"] if hit[4] == 1]
    assert [hit[0] for hit in after["hits"] if hit[4] == 1] == [ada]


async def test_a_running_job_labelling_a_stored_entity_changes_nothing_until_it_commits(
    graph: Graph, builder: GraphBuilder
) -> None:
    async def label(graph: Graph, job: jobs.Job, builder: GraphBuilder, *_: Version) -> None:
        await jobs.write_entities(graph, job, [entity_row(builder, labels=["Scientist"])])

    before, after = await assert_invisible_until_commit(graph, builder, label, "Ada")
    assert before["entity"].labels == ("Person",) or list(before["entity"].labels) == ["Person"]
    assert sorted(after["entity"].labels) == ["Person", "Scientist"]


async def test_a_running_job_mentioning_a_committed_passage_changes_nothing_until_it_commits(
    graph: Graph, builder: GraphBuilder
) -> None:
    async def mention(
        graph: Graph, job: jobs.Job, builder: GraphBuilder, first: Version, other: Version
    ) -> None:
        await jobs.write_entities(
            graph, job, [entity_row(builder, mentions=[other.passage_ids[0]])]
        )

    before, after = await assert_invisible_until_commit(graph, builder, mention, "Ada")
    assert len(after["evidence"]) == len(before["evidence"]) + 1


async def test_a_running_job_mentioning_only_committed_passages_adds_no_supported_entity(
    graph: Graph, builder: GraphBuilder
) -> None:
    async def new_entity(
        graph: Graph, job: jobs.Job, builder: GraphBuilder, first: Version, other: Version
    ) -> None:
        row = {**entity_row(builder, name="Linus", mentions=[other.passage_ids[0]])}
        row["id"] = builder.entity_id("Linus")
        await jobs.write_entities(graph, job, [row])

    before, after = await assert_invisible_until_commit(graph, builder, new_entity, "Linus")
    linus = builder.entity_id("Linus")
    assert linus not in [hit[0] for hit in before["hits"]]
    assert (linus, True) in [hit[:2] for hit in after["hits"]]


async def test_a_running_job_relating_stored_entities_changes_nothing_until_it_commits(
    graph: Graph, builder: GraphBuilder
) -> None:
    async def relate(
        graph: Graph, job: jobs.Job, builder: GraphBuilder, first: Version, other: Version
    ) -> None:
        await jobs.write_relations(
            graph,
            job,
            [
                {
                    "id": new_id(),
                    "type": "ADMIRES",
                    "source": builder.entity_id("Ada"),
                    "target": builder.entity_id("Bo"),
                    "passageIds": [other.passage_ids[0]],
                }
            ],
        )

    before, after = await assert_invisible_until_commit(graph, builder, relate, "Ada")
    assert [edge[0] for edge in before["walk"]] == ["KNOWS"]
    assert sorted(edge[0] for edge in after["walk"]) == ["ADMIRES", "KNOWS"]


async def test_a_running_job_adding_support_to_a_stored_relation_changes_nothing_until_it_commits(
    graph: Graph, builder: GraphBuilder
) -> None:
    async def support(
        graph: Graph, job: jobs.Job, builder: GraphBuilder, first: Version, other: Version
    ) -> None:
        [row] = await graph.read("MATCH ()-[r:KNOWS]->() RETURN r.id AS id", {})
        await jobs.write_relations(
            graph,
            job,
            [
                {
                    "id": row["id"],
                    "type": "KNOWS",
                    "source": builder.entity_id("Ada"),
                    "target": builder.entity_id("Grace"),
                    "passageIds": [first.passage_ids[1]],
                }
            ],
        )

    before, after = await assert_invisible_until_commit(graph, builder, support, "Ada")
    assert [len(edge[4]) for edge in before["walk"]] == [1]
    assert [len(edge[4]) for edge in after["walk"]] == [2]


async def test_a_running_job_re_describing_a_stored_relation_changes_nothing_until_it_commits(
    graph: Graph, builder: GraphBuilder
) -> None:
    async def describe(
        graph: Graph, job: jobs.Job, builder: GraphBuilder, first: Version, other: Version
    ) -> None:
        [row] = await graph.read("MATCH ()-[r:KNOWS]->() RETURN r.id AS id", {})
        await jobs.write_relations(
            graph,
            job,
            [
                {
                    "id": row["id"],
                    "type": "KNOWS",
                    "source": builder.entity_id("Ada"),
                    "target": builder.entity_id("Grace"),
                    "passageIds": [first.passage_ids[0]],
                    "properties": {"description": "Ada taught Grace.", "weight": 3.5},
                }
            ],
        )

    before, after = await assert_invisible_until_commit(graph, builder, describe, "Ada")
    assert [edge[5:] for edge in before["walk"]] == [(None, None)]
    assert [edge[5:] for edge in after["walk"]] == [("Ada taught Grace.", 3.5)]


async def test_what_a_commit_links_before_it_moves_the_version_shows_nowhere_until_it_does(
    graph: Graph, builder: GraphBuilder
) -> None:
    """The commit's first step links the new version's passages: a new entity, a stored
    entity's mention, a new relation and a stored relation's support (graph/jobs.py
    commit_first_step). The version hides all of it until the second step moves it; `jobs recover`
    finishes a commit stopped between the two, and then all of it shows."""
    first, _ = await stored_world(graph, builder)
    before = await answers(graph, builder, "Linus")
    ada, grace, linus = (builder.entity_id(name) for name in ("Ada", "Grace", "Linus"))
    job = await jobs.begin_job(graph, first.document_id, "acme")
    passage = new_id()
    await jobs.write_passages(
        graph, job, [{"id": passage, "position": 0, "text": "Ada met Linus."}]
    )
    await jobs.write_entities(
        graph,
        job,
        [
            entity_row(builder, mentions=[passage]),
            {**entity_row(builder, name="Linus", mentions=[passage]), "id": linus},
        ],
    )
    [knows] = await graph.read("MATCH ()-[r:KNOWS]->() RETURN r.id AS id", {})
    await jobs.write_relations(
        graph,
        job,
        [
            {
                "id": new_id(),
                "type": "MET",
                "source": ada,
                "target": linus,
                "passageIds": [passage],
            },
            {
                "id": knows["id"],
                "type": "KNOWS",
                "source": ada,
                "target": grace,
                "passageIds": [passage],
            },
        ],
    )
    await jobs.commit_first_step(graph, job)  # the first step
    linked = await graph.read(
        "MATCH (e:Entity)-[:MENTIONED_IN]->(:Chunk {id: $id}) RETURN e.id AS id ORDER BY id",
        {"id": passage},
    )
    assert [row["id"] for row in linked] == sorted([ada, linus])
    supported = await graph.read(
        "MATCH ()-[r]->() WHERE $id IN r.passageIds RETURN type(r) AS type ORDER BY type",
        {"id": passage},
    )
    assert [row["type"] for row in supported] == ["KNOWS", "MET"]  # linked, and yet:
    assert await answers(graph, builder, "Linus") == before
    assert await lookups.entities_by_id(graph, SCOPE, [linus]) == [None]

    assert await jobs.publish_committed_jobs(graph) == [job.id]
    after = await answers(graph, builder, "Linus")
    assert after["evidence"] == [passage]
    assert (linus, True) in [hit[:2] for hit in after["hits"]]
    assert sorted((edge[0], list(edge[4])) for edge in after["walk"]) == [
        ("KNOWS", [passage]),
        ("MET", [passage]),
    ]


async def test_a_stored_path_stays_a_path_while_a_commit_runs_and_turns_assertion_with_the_version(
    graph: Graph, builder: GraphBuilder
) -> None:
    """Issue 25 §3: an existing PATH relation never disappears while a commit runs. A
    relation listing passages of which none is visible is dropped (seed walk step 3), so the
    commit's first step must not list a job's passages on a stored path: the version is not
    there yet to make them visible. The second step adds them with the version."""
    await stored_world(graph, builder)
    await builder.version("acme", ["Ada and Grace."], relations=[("Ada", "MET", "Grace", None)])
    ada, grace = builder.entity_id("Ada"), builder.entity_id("Grace")
    [met] = await graph.read("MATCH ()-[r:MET]->() RETURN r.id AS id", {})
    before = await answers(graph, builder, "Ada")
    assert ("MET", "PATH", ada, grace, ()) in [(*e[:4], tuple(e[4])) for e in before["walk"]]

    job = await jobs.begin_job(graph, new_id(), "acme")  # a document of its own
    passage = new_id()
    await jobs.write_passages(
        graph, job, [{"id": passage, "position": 0, "text": "Ada met Grace."}]
    )
    relation = {"id": met["id"], "type": "MET", "source": ada, "target": grace}
    await jobs.write_relations(graph, job, [{**relation, "passageIds": [passage]}])
    await jobs.commit_first_step(graph, job)  # the first step only
    assert await answers(graph, builder, "Ada") == before

    assert await jobs.publish_committed_jobs(graph) == [job.id]
    after = await answers(graph, builder, "Ada")
    assert ("MET", "ASSERTION", ada, grace, (passage,)) in [
        (*e[:4], tuple(e[4])) for e in after["walk"]
    ]
