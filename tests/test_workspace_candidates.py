"""Lexical candidates come from the caller's workspaces (issue 25 §2, contract §2 "Ownership"),
on the real Neo4j: the FULLTEXT indexes cover the owner key, and the Lucene query asks for the
scope's keys or none, so another workspace's matches never take one of the `min(2·limit, 1000)`
candidate slots (seed step 3), and unowned entities and passages stay candidates for everyone.

The crowd: another workspace holds many names (or passages) that are nothing but the query's
word, which Lucene scores above the caller's longer one; before the key, they filled every slot.
"""

from __future__ import annotations

from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from graph.driver import Graph
from graph.graph_schema import PASSAGE_FULLTEXT_INDEX, apply_schema
from graph.index_catalog import read_index_catalog
from graph.lexical_index import LexicalIndexSpec, fulltext_index_name
from graph.ownership import OWNER_KEY
from tests.conftest import TEST_DIMENSION, Client
from tests.support.graph_builder import GraphBuilder, unit_vector

SEARCH_ENTITIES = """
query($query: String!, $mode: SearchMode!, $limit: Int!, $scope: ScopeInput) {
  searchEntities(query: $query, mode: $mode, limit: $limit, scope: $scope) {
    entity { name } score lexicalRank
  }
}
"""

SEARCH_PASSAGES = """
query($query: String!, $mode: SearchMode!, $limit: Int!, $scope: ScopeInput) {
  searchPassages(query: $query, mode: $mode, limit: $limit, scope: $scope) {
    passage { text } score lexicalRank
  }
}
"""

MINE = {"workspaces": ["mine"]}
CROWD = 12  # more than the 2 candidate slots of limit 1, and the 8 of limit 4


def axis(index: int) -> list[float]:
    return unit_vector(TEST_DIMENSION, index)


async def entity_hits(client: Client, query: str, **variables: Any) -> list[dict[str, Any]]:
    client.embedder.script(query, axis(0))
    body = await client.execute(SEARCH_ENTITIES, {"query": query, **variables})
    assert "errors" not in body, body
    hits: list[dict[str, Any]] = body["data"]["searchEntities"]
    return hits


async def passage_hits(client: Client, query: str, **variables: Any) -> list[dict[str, Any]]:
    client.embedder.script(query, axis(0))
    body = await client.execute(SEARCH_PASSAGES, {"query": query, **variables})
    assert "errors" not in body, body
    hits: list[dict[str, Any]] = body["data"]["searchPassages"]
    return hits


async def crowd_of_entities(builder: GraphBuilder) -> None:
    """Another workspace's CROWD entities named just "Acme", each nearest the query vector."""
    names = [f"Acme{'.' * i}" for i in range(CROWD)]  # one word each: Lucene's best scores
    await builder.version(
        "other",
        ["Acme."],
        mentions={name: [0] for name in names},
        vectors={name: axis(0) for name in names},
        owner_keys=True,
    )


async def crowd_of_passages(builder: GraphBuilder) -> None:
    await builder.version("other", ["acme"] * CROWD, owner_keys=True)


# Entities -----------------------------------------------------------------------------------


@pytest.mark.parametrize("mode", ["LEXICAL", "HYBRID"])
async def test_another_workspaces_entities_never_take_a_candidate_slot_so_limit_counts_nothing(
    client: Client, builder: GraphBuilder, graph: Graph, mode: str
) -> None:
    await crowd_of_entities(builder)
    await builder.version(
        "mine",
        ["Acme Rocket Works."],
        mentions={"Acme Rocket Works": [0]},
        vectors={"Acme Rocket Works": axis(3)},
        owner_keys=True,
    )
    await apply_schema(graph, TEST_DIMENSION)
    for limit in (1, 2, 3, 4):
        hits = await entity_hits(client, "acme", mode=mode, limit=limit, scope=MINE)
        assert [(hit["entity"]["name"], hit["lexicalRank"]) for hit in hits] == [
            ("Acme Rocket Works", 1)
        ], f"limit {limit}"


@pytest.mark.parametrize("mode", ["LEXICAL", "HYBRID"])
async def test_recall_does_not_drop_when_another_workspace_holds_many_better_scoring_matches(
    client: Client, builder: GraphBuilder, graph: Graph, mode: str
) -> None:
    await crowd_of_entities(builder)
    mine = ["Acme Rocket Works", "Acme Anvil Supply", "Acme Giant Magnet Company"]
    await builder.version(
        "mine",
        ["Acme's catalogue."],
        mentions={name: [0] for name in mine},
        vectors={name: axis(3) for name in mine},
        owner_keys=True,
    )
    await apply_schema(graph, TEST_DIMENSION)
    hits = await entity_hits(client, "acme", mode=mode, limit=3, scope=MINE)
    assert sorted(hit["entity"]["name"] for hit in hits if hit["lexicalRank"]) == sorted(mine)


@pytest.mark.parametrize("mode", ["LEXICAL", "HYBRID"])
async def test_unowned_entities_are_still_candidates_for_every_caller(
    client: Client, builder: GraphBuilder, graph: Graph, mode: str
) -> None:
    await crowd_of_entities(builder)
    for caller in ("mine", "third"):  # one entity, mentioned from two workspaces
        await builder.version(
            caller,
            ["Acme Rocket Works."],
            mentions={"Acme Rocket Works": [0]},
            vectors={"Acme Rocket Works": axis(3)},
            owner_keys=False,  # as another pipeline writes it: no owner
        )
    await apply_schema(graph, TEST_DIMENSION)
    for caller in ("mine", "third"):
        hits = await entity_hits(client, "acme", mode=mode, limit=1, scope={"workspaces": [caller]})
        assert [(hit["entity"]["name"], hit["lexicalRank"]) for hit in hits] == [
            ("Acme Rocket Works", 1)
        ], caller


async def test_the_owner_filter_leaves_every_candidates_score_as_its_words_give_it(
    client: Client, builder: GraphBuilder, graph: Graph
) -> None:
    await crowd_of_entities(builder)
    await builder.version(
        "mine",
        ["Acme Rocket Works.", "Acme."],
        mentions={"Acme Rocket Works": [0], "Acme Corp": [1]},
        owner_keys=True,
    )
    await apply_schema(graph, TEST_DIMENSION)
    scoped = await entity_hits(client, "acme", mode="LEXICAL", limit=100, scope=MINE)
    everything = await entity_hits(client, "acme", mode="LEXICAL", limit=100)
    scores = {hit["entity"]["name"]: hit["score"] for hit in everything}
    assert [hit["score"] for hit in scoped] == [scores[hit["entity"]["name"]] for hit in scoped]
    assert len(scoped) == 2


# Passages -----------------------------------------------------------------------------------


@pytest.mark.parametrize("mode", ["LEXICAL", "HYBRID"])
async def test_another_workspaces_passages_never_take_a_candidate_slot(
    client: Client, builder: GraphBuilder, graph: Graph, mode: str
) -> None:
    await crowd_of_passages(builder)
    await builder.version("mine", ["acme rocket works shipped the order"], owner_keys=True)
    await apply_schema(graph, TEST_DIMENSION)
    for limit in (1, 2, 3, 4):
        hits = await passage_hits(client, "acme", mode=mode, limit=limit, scope=MINE)
        assert [(hit["passage"]["text"], hit["lexicalRank"]) for hit in hits] == [
            ("acme rocket works shipped the order", 1)
        ], f"limit {limit}"


@pytest.mark.parametrize("mode", ["LEXICAL", "HYBRID"])
async def test_unowned_passages_are_still_candidates_for_every_caller(
    client: Client, builder: GraphBuilder, graph: Graph, mode: str
) -> None:
    await crowd_of_passages(builder)
    await builder.version("mine", ["acme rocket works shipped the order"], owner_keys=False)
    await builder.version("mine", ["acme anvils were late"], owner_keys=True)
    await apply_schema(graph, TEST_DIMENSION)
    hits = await passage_hits(client, "acme", mode=mode, limit=1, scope=MINE)
    assert len(hits) == 1
    hits = await passage_hits(client, "acme", mode=mode, limit=2, scope=MINE)
    assert sorted(hit["passage"]["text"] for hit in hits) == [
        "acme anvils were late",
        "acme rocket works shipped the order",
    ]


# The indexes --------------------------------------------------------------------------------


async def test_schema_apply_replaces_lexical_indexes_that_lack_the_owner_key(
    builder: GraphBuilder, graph: Graph
) -> None:
    await builder.version("mine", ["Ada."], mentions={"Ada": [0]})
    for ddl in (
        "CREATE FULLTEXT INDEX entity_name_fulltext_Person FOR (n:Person) ON EACH [n.name]"
        " OPTIONS {indexConfig: {`fulltext.analyzer`: 'english'}}",
        "CREATE FULLTEXT INDEX chunk_text_fulltext FOR (n:Chunk) ON EACH [n.text]"
        " OPTIONS {indexConfig: {`fulltext.analyzer`: 'standard-no-stop-words'}}",
    ):
        await graph.write(ddl, {})
    report = await apply_schema(graph, TEST_DIMENSION)
    assert {fulltext_index_name("Person"), PASSAGE_FULLTEXT_INDEX} <= set(report.created)
    catalog = await read_index_catalog(graph)
    covered = [catalog.label_indexes("Person").fulltext, catalog.passage_indexes().fulltext]
    assert [index is not None and OWNER_KEY in index.properties for index in covered] == [
        True,
        True,
    ]


async def test_an_index_without_the_owner_key_answers_unfiltered_and_says_to_reapply(
    client: Client, builder: GraphBuilder, graph: Graph
) -> None:
    await crowd_of_entities(builder)
    await builder.version(
        "mine",
        ["Acme."],
        mentions={"Acme Corp": [0]},
        vectors={"Acme Corp": axis(3)},
        owner_keys=True,
    )
    await apply_schema(graph, TEST_DIMENSION)
    await graph.write("DROP INDEX entity_name_fulltext_Person", {})
    await graph.write(
        "CREATE FULLTEXT INDEX old_person_names FOR (n:Person) ON EACH [n.name]"
        " OPTIONS {indexConfig: {`fulltext.analyzer`: 'english'}}",
        {},
    )
    await graph.write("CALL db.awaitIndexes(60)", {})
    client.clock.advance(2.0)  # the kept catalog is older than contract §3's second
    hits = await entity_hits(client, "acme", mode="LEXICAL", limit=100, scope=MINE)
    assert [hit["entity"]["name"] for hit in hits] == ["Acme Corp"]
    problems = (await read_index_catalog(graph)).lexical_mismatches(LexicalIndexSpec())
    assert any(OWNER_KEY in problem and "schema apply" in problem for problem in problems)


# Hostile queries ------------------------------------------------------------------------------

QUERY_TEXT = st.text(
    alphabet=st.sampled_from(list('acme AND OR NOT workspaceKey:[*TO*]()^0"~-+!{}/\\&|?é1 ')),
    min_size=1,
    max_size=40,
)


@settings(
    max_examples=40, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(query=QUERY_TEXT)
async def test_no_query_text_reaches_lucene_as_syntax_or_leaves_the_callers_workspaces(
    client: Client, builder: GraphBuilder, graph: Graph, query: str
) -> None:
    if not await graph.read("MATCH (e:Entity) RETURN e LIMIT 1", {}):
        await crowd_of_entities(builder)
        await builder.version("other", ["workspacekey 0 to"], owner_keys=True)
        await builder.version(
            "mine", ["Acme Works."], mentions={"Acme Works": [0]}, owner_keys=True
        )
        await apply_schema(graph, TEST_DIMENSION)
    client.embedder.script(query, axis(0))
    for operation, field in (
        (SEARCH_ENTITIES, "searchEntities"),
        (SEARCH_PASSAGES, "searchPassages"),
    ):
        body = await client.execute(
            operation, {"query": query, "mode": "LEXICAL", "limit": 5, "scope": MINE}
        )
        if "errors" in body:
            assert body["errors"][0]["extensions"]["code"] == "MALFORMED", body
            continue
        texts = [
            hit["entity"]["name"] if "entity" in hit else hit["passage"]["text"]
            for hit in body["data"][field]
        ]
        assert set(texts) <= {"Acme Works", "Acme Works."}, texts
