"""Entity search on the real Neo4j: one test per seed step and contract §3 decision."""

from __future__ import annotations

from collections.abc import Awaitable
from typing import Any, cast

import pytest

from contract.scope import Scope
from graph.driver import Graph
from graph.entity_search import EntityHitRecord
from graph.graph_schema import apply_schema, vector_index_name
from graph.lexical_index import fulltext_index_name
from graph.records import EntityRecord
from loaders import create_loaders
from resolvers.entity_hit import EntityHit
from resolvers.passage import Passage
from retrieval.fusion import rrf_score
from tests.conftest import TEST_DIMENSION, Client, without_request_ids
from tests.support.graph_builder import GraphBuilder, new_id, unit_vector

SEARCH = """
query($query: String!, $mode: SearchMode! = HYBRID, $limit: Int! = 10, $supportLimit: Int! = 3,
      $labels: [String!], $scope: ScopeInput) {
  searchEntities(query: $query, mode: $mode, limit: $limit, supportLimit: $supportLimit,
                 labels: $labels, scope: $scope) {
    entity { id name labels }
    status score lexicalRank semanticRank evidenceIds
  }
}
"""

SEARCH_WITH_EVIDENCE = """
query($query: String!, $limit: Int! = 10, $scope: ScopeInput) {
  searchEntities(query: $query, limit: $limit, scope: $scope) {
    entity { name }
    evidence { id text position document { title workspace } }
  }
}
"""


def axis(index: int) -> list[float]:
    return unit_vector(TEST_DIMENSION, index)


async def search(
    client: Client, query: str, vector: list[float] | None = None, **variables: Any
) -> dict[str, Any]:
    client.embedder.script(query, vector or axis(0))
    body = await client.execute(SEARCH, {"query": query, **variables})
    assert "errors" not in body, body
    hits: list[dict[str, Any]] = body["data"]["searchEntities"]
    return {"hits": hits, "names": [hit["entity"]["name"] for hit in hits]}


async def error_of(client: Client, query: str, **variables: Any) -> dict[str, Any]:
    client.embedder.script(query, axis(0))
    body = await client.execute(SEARCH, {"query": query, **variables})
    assert body.get("data") is None or body["data"].get("searchEntities") is None, body
    error: dict[str, Any] = body["errors"][0]
    return error


# Seed step 1 ------------------------------------------------------------------------------


async def test_step1_without_labels_every_label_with_a_vector_index_is_searched(
    client: Client, builder: GraphBuilder, graph: Graph
) -> None:
    await builder.version(
        "acme",
        ["Ada Lovelace.", "Acme Corp."],
        mentions={"Ada Lovelace": [0], "Acme Corp": [1]},
        labels={"Ada Lovelace": ["Person"], "Acme Corp": ["Organization"]},
    )
    await apply_schema(graph, TEST_DIMENSION)
    found = await search(client, "ada acme")
    assert sorted(found["names"]) == ["Acme Corp", "Ada Lovelace"]


async def test_step1_graph_owned_labels_are_never_entity_labels(
    client: Client, builder: GraphBuilder, graph: Graph
) -> None:
    await builder.version("acme", ["Ada Lovelace."], mentions={"Ada Lovelace": [0]})
    await apply_schema(graph, TEST_DIMENSION)  # also a VECTOR index on Chunk.embedding
    await graph.write(
        "CREATE (:Community {id: randomUUID(), name: 'ada community', embedding: $v})",
        {"v": axis(0)},
    )
    await graph.write(
        "CREATE VECTOR INDEX community_vec IF NOT EXISTS FOR (n:Community) ON (n.embedding)"
        " OPTIONS {indexConfig: {`vector.dimensions`: 8, `vector.similarity_function`: 'cosine'}}",
        {},
    )
    await graph.write("CALL db.awaitIndexes(60)", {})
    body = await client.execute("{ entityLabels { label fulltextIndex vectorIndex } }")
    assert body["data"]["entityLabels"] == [
        {"label": "Person", "fulltextIndex": "ONLINE", "vectorIndex": "ONLINE"}
    ]
    assert (await search(client, "ada"))["names"] == ["Ada Lovelace"]


async def test_step1_a_graph_owned_label_asked_for_is_malformed(
    client: Client, builder: GraphBuilder, graph: Graph
) -> None:
    await builder.version("acme", ["Ada."], mentions={"Ada": [0]})
    await apply_schema(graph, TEST_DIMENSION)
    error = await error_of(client, "ada", labels=["Chunk"])
    assert error["extensions"]["code"] == "MALFORMED"
    assert "labels" in error["message"]


# Seed step 2 ------------------------------------------------------------------------------


async def test_step2_a_missing_fulltext_index_is_index_not_ready_naming_label_index_and_state(
    client: Client, builder: GraphBuilder, graph: Graph
) -> None:
    await builder.version("acme", ["Ada."], mentions={"Ada": [0]})
    await apply_schema(graph, TEST_DIMENSION)
    await graph.write("DROP INDEX entity_name_fulltext_Person", {})
    for mode in ("HYBRID", "LEXICAL", "SEMANTIC"):
        error = await error_of(client, "ada", mode=mode)
        assert without_request_ids(error["extensions"]) == {
            "code": "INDEX_NOT_READY",
            "label": "Person",
            "index": "FULLTEXT",
            "state": "MISSING",
        }
        assert "Person" in error["message"] and "FULLTEXT" in error["message"]


async def test_step2_a_label_asked_for_without_a_vector_index_is_index_not_ready(
    client: Client, builder: GraphBuilder, graph: Graph
) -> None:
    await builder.version("acme", ["Ada."], mentions={"Ada": [0]})
    await apply_schema(graph, TEST_DIMENSION)
    error = await error_of(client, "ada", labels=["Robot"])
    assert error["extensions"]["code"] == "INDEX_NOT_READY"
    assert error["extensions"]["label"] == "Robot"
    assert error["extensions"]["state"] == "MISSING"


@pytest.mark.slow
async def test_step2_a_populating_index_is_index_not_ready(
    client: Client, builder: GraphBuilder, graph: Graph
) -> None:
    await builder.version("acme", ["Ada."], mentions={"Ada": [0]})
    await apply_schema(graph, TEST_DIMENSION)
    # Enough nodes that building a new vector index takes a while.
    await graph.auto_commit(
        "UNWIND range(1, 400000) AS i CALL (i) {"
        " CREATE (:Entity:Bulk {id: randomUUID(), name: 'bulk ' + i,"
        " embedding: [x IN range(1, 8) | rand()]}) } IN TRANSACTIONS OF 20000 ROWS",
        {},
    )
    await apply_schema(graph, TEST_DIMENSION, labels=["Bulk"], await_seconds=0)
    states = await graph.read(
        "SHOW INDEXES YIELD name, state WHERE name = 'entity_embedding_vector_Bulk' RETURN state",
        {},
    )
    try:
        assert states[0]["state"] == "POPULATING", "the index built too fast to observe"
        error = await error_of(client, "ada", labels=["Bulk"])
        assert error["extensions"]["code"] == "INDEX_NOT_READY"
        assert error["extensions"]["state"] == "POPULATING"
    finally:
        # The Bulk indexes go before the next test's wipe deletes the 400,000 nodes: a
        # population left running, and every deletion applied to both indexes, cost that
        # wipe most of its time.
        for index in (vector_index_name("Bulk"), fulltext_index_name("Bulk")):
            await graph.write("DROP INDEX $name IF EXISTS", {"name": index})


# Seed step 3 / contract §3 lexical ------------------------------------------------------------


async def test_step3_lucene_operators_quotes_wildcards_and_field_syntax_change_nothing(
    client: Client, builder: GraphBuilder, graph: Graph
) -> None:
    names = ["Ada Lovelace", "Ada Byron", "Charles Babbage", "Lovelace Trust", "Name Plate"]
    await builder.version(
        "acme", [f"{n}." for n in names], mentions={n: [i] for i, n in enumerate(names)}
    )
    await apply_schema(graph, TEST_DIMENSION)
    plain = await search(client, "ada lovelace", mode="LEXICAL")
    assert plain["names"][0] == "Ada Lovelace"
    for noisy in (
        'Ada* "Lovelace"~',
        "+ada -lovelace",
        "ADA && LOVELACE",
        "(ada) [lovelace TO]",
        "ada^ lovelace?",
        "ada/lovelace\\",
        '"ada lovelace',
        "ada:lovelace",
    ):
        # Each is the words "ada lovelace" wrapped in Lucene syntax: the same hits, same scores.
        # (A digit after `~` or `^` is a word of its own, as in "Apollo 11": not used here.)
        assert (await search(client, noisy, mode="LEXICAL"))["hits"] == plain["hits"], noisy
    # A field name is just a word: `name:ada` searches the words "name" and "ada".
    assert "Name Plate" in (await search(client, "name:ada", mode="LEXICAL"))["names"]


async def test_step3_a_query_with_no_word_left_after_reduction_is_malformed(client: Client) -> None:
    for query in ("", "   ", "*?~", '"" () []'):
        error = await error_of(client, query)
        assert error["extensions"]["code"] == "MALFORMED"
        assert "`query`" in error["message"]


async def test_step3_each_list_reads_twice_limit_candidates_per_label(
    client: Client, builder: GraphBuilder, graph: Graph
) -> None:
    names = [f"Alpha {i:02d}" for i in range(30)]
    await builder.version(
        "acme",
        [f"{n}." for n in names],
        mentions={n: [i] for i, n in enumerate(names)},
        labels={n: ["Person" if i % 2 else "Robot"] for i, n in enumerate(names)},
    )
    await apply_schema(graph, TEST_DIMENSION)
    for limit in (1, 4, 10):
        found = await search(client, "alpha", limit=limit, mode="LEXICAL")
        assert len(found["hits"]) == limit
        search_parameters = client.search_parameters
        assert search_parameters["lexicalK"] == 2 * limit
        assert search_parameters["semanticK"] == 2 * limit
    # The cap: with limit 100 a label reads 200, never more than 1000.
    await search(client, "alpha", limit=100)
    assert client.search_parameters["lexicalK"] == 200
    assert client.search_parameters["capK"] == 1000


async def test_step3_lexical_reads_are_bounded_by_twice_limit_per_label(
    client: Client, builder: GraphBuilder, graph: Graph
) -> None:
    """With limit 2, each label contributes at most 4 lexical candidates: 2 labels → 8."""
    names = [f"Beta {i:02d}" for i in range(20)]
    await builder.version(
        "acme",
        [f"{n}." for n in names],
        mentions={n: [i] for i, n in enumerate(names)},
        labels={n: ["Person" if i % 2 else "Robot"] for i, n in enumerate(names)},
        vectors={n: axis(1) for n in names},
    )
    await apply_schema(graph, TEST_DIMENSION)
    found = await search(client, "beta", axis(5), limit=2)
    ranks = [hit["lexicalRank"] for hit in found["hits"]]
    assert all(rank is not None and rank <= 8 for rank in ranks)


async def test_step3_the_semantic_read_is_repeated_at_the_cap_when_too_few_are_returnable(
    client: Client, builder: GraphBuilder, graph: Graph
) -> None:
    # The 12 nearest entities are only mentioned in another workspace; 3 far ones in acme.
    near = [f"Near {i:02d}" for i in range(12)]
    far = [f"Far {i}" for i in range(3)]
    await builder.version(
        "globex",
        [f"{n}." for n in near],
        mentions={n: [i] for i, n in enumerate(near)},
        vectors={n: unit_vector(TEST_DIMENSION, 0, 1.0 + i / 100) for i, n in enumerate(near)},
    )
    await builder.version(
        "acme",
        [f"{n}." for n in far],
        mentions={n: [i] for i, n in enumerate(far)},
        vectors={n: axis(4) for n in far},
    )
    await apply_schema(graph, TEST_DIMENSION)
    scope = {"workspaces": ["acme"]}
    found = await search(client, "zzz", axis(0), mode="SEMANTIC", limit=3, scope=scope)
    # The first read (2·3 = 6 candidates) is full and none is returnable: read again at 1000.
    assert sorted(found["names"]) == far
    assert [hit["semanticRank"] for hit in found["hits"]] == [1, 2, 3]


# Seed step 4 / contract §3 fusion ---------------------------------------------------------------


async def test_step4_hybrid_scores_equal_the_sum_of_reciprocal_ranks_with_k_60(
    client: Client, builder: GraphBuilder, graph: Graph
) -> None:
    names = ["Gamma Ray", "Gamma Knife", "Delta Wing", "Gamma Delta"]
    await builder.version(
        "acme",
        [f"{n}." for n in names],
        mentions={n: [i] for i, n in enumerate(names)},
        vectors={n: axis(i) for i, n in enumerate(names)},
    )
    await apply_schema(graph, TEST_DIMENSION)
    found = await search(client, "gamma delta", axis(2))
    assert found["hits"], found
    for hit in found["hits"]:
        expected = rrf_score([hit["lexicalRank"], hit["semanticRank"]], 60)
        assert hit["score"] == pytest.approx(expected, rel=1e-9)
    # The query is an entity's exact name, which comes first whatever its score (contract §3);
    # the others follow their RRF score.
    assert found["names"][0] == "Gamma Delta"
    scores = [hit["score"] for hit in found["hits"][1:]]
    assert scores == sorted(scores, reverse=True)


async def test_step4_lexical_and_semantic_modes_keep_their_own_order_and_score(
    client: Client, builder: GraphBuilder, graph: Graph
) -> None:
    names = ["Omega One", "Omega Two Omega", "Sigma"]
    await builder.version(
        "acme",
        [f"{n}." for n in names],
        mentions={n: [i] for i, n in enumerate(names)},
        vectors={"Omega One": axis(3), "Omega Two Omega": axis(1), "Sigma": axis(0)},
    )
    await apply_schema(graph, TEST_DIMENSION)
    lexical = await search(client, "omega", mode="LEXICAL")
    assert all(hit["semanticRank"] is None for hit in lexical["hits"])
    assert [hit["lexicalRank"] for hit in lexical["hits"]] == [1, 2]
    semantic = await search(client, "sigma", axis(0), mode="SEMANTIC")
    assert semantic["names"][0] == "Sigma"
    assert all(hit["lexicalRank"] is None for hit in semantic["hits"])
    # SEMANTIC scores are cosine similarities: the identical direction scores 1.
    assert semantic["hits"][0]["score"] == pytest.approx(1.0, abs=1e-5)


async def test_step4_ties_break_by_entity_id(
    client: Client, builder: GraphBuilder, graph: Graph
) -> None:
    names = [f"Twin {letter}" for letter in "abcdef"]
    await builder.version(
        "acme",
        ["twin"] * len(names),
        mentions={n: [i] for i, n in enumerate(names)},
        vectors={n: axis(2) for n in names},
    )
    await apply_schema(graph, TEST_DIMENSION)
    found = await search(client, "twin", axis(2), mode="SEMANTIC")
    ids = [hit["entity"]["id"] for hit in found["hits"]]
    assert ids == sorted(ids)
    assert (await search(client, "twin", axis(2), mode="SEMANTIC"))["hits"] == found["hits"]


async def test_step4_an_entity_with_several_labels_appears_once_per_list(
    client: Client, builder: GraphBuilder, graph: Graph
) -> None:
    await builder.version(
        "acme",
        ["Kappa."],
        mentions={"Kappa": [0]},
        labels={"Kappa": ["Person", "Robot"]},
        vectors={"Kappa": axis(0)},
    )
    await apply_schema(graph, TEST_DIMENSION)
    found = await search(client, "kappa", axis(0))
    assert found["names"] == ["Kappa"]
    assert found["hits"][0]["lexicalRank"] == 1 and found["hits"][0]["semanticRank"] == 1
    assert sorted(found["hits"][0]["entity"]["labels"]) == ["Person", "Robot"]


# Seed step 5 / contract §3 returnable and status ----------------------------------------------


async def test_step5_an_entity_no_passage_in_scope_mentions_never_comes_back(
    client: Client, builder: GraphBuilder, graph: Graph
) -> None:
    await builder.version("globex", ["Zeta secret."], mentions={"Zeta Secret": [0]})
    await builder.version("acme", ["Zeta public."], mentions={"Zeta Public": [0]})
    await apply_schema(graph, TEST_DIMENSION)
    found = await search(client, "zeta", scope={"workspaces": ["acme"]})
    assert found["names"] == ["Zeta Public"]
    found = await search(client, "zeta", scope={"documentIds": []})
    assert found["names"] == []


async def test_step5_ranks_count_only_entities_the_caller_may_see(
    client: Client, builder: GraphBuilder, graph: Graph
) -> None:
    await builder.version(
        "globex", ["Eta Eta Eta."], mentions={"Eta Eta": [0]}, vectors={"Eta Eta": axis(0)}
    )
    await builder.version("acme", ["Eta."], mentions={"Eta": [0]}, vectors={"Eta": axis(1)})
    await apply_schema(graph, TEST_DIMENSION)
    found = await search(client, "eta", axis(0), scope={"workspaces": ["acme"]})
    assert found["names"] == ["Eta"]
    assert found["hits"][0]["lexicalRank"] == 1 and found["hits"][0]["semanticRank"] == 1


async def test_step5_unsupported_when_every_in_scope_passage_is_superseded(
    client: Client, builder: GraphBuilder, graph: Graph
) -> None:
    first = await builder.version("acme", ["Theta old."], mentions={"Theta": [0]})
    await builder.version("acme", ["Rewritten."], document_id=first.document_id)
    await apply_schema(graph, TEST_DIMENSION)
    found = await search(client, "theta")
    assert found["hits"][0]["status"] == "UNSUPPORTED"
    assert found["hits"][0]["evidenceIds"] == []


async def test_step5_an_entity_only_unfinished_jobs_wrote_is_invisible(
    client: Client, builder: GraphBuilder, graph: Graph
) -> None:
    """contract §2: everything a job writes stays invisible until it commits, so an entity only a
    RUNNING or FAILED job wrote is not returned at all (its job staged it, graph/jobs.py)."""
    await builder.version("acme", ["Iota running."], mentions={"Iota Running": [0]}, commit=False)
    await builder.version("acme", ["Iota failed."], mentions={"Iota Failed": [0]}, fail=True)
    await builder.version("acme", ["Iota done."], mentions={"Iota Done": [0]})
    await apply_schema(graph, TEST_DIMENSION)
    found = await search(client, "iota")
    status = {hit["entity"]["name"]: hit["status"] for hit in found["hits"]}
    assert status == {"Iota Done": "SUPPORTED"}


# Seed step 6 / contract §3 evidence -----------------------------------------------------------


async def test_step6_evidence_is_up_to_support_limit_visible_passages_by_document_then_position(
    client: Client, builder: GraphBuilder, graph: Graph
) -> None:
    docs = [
        await builder.version(
            "acme", [f"Lambda {d}.{p}" for p in range(6)], mentions={"Lambda": range(6)}
        )
        for d in range(3)
    ]
    await apply_schema(graph, TEST_DIMENSION)
    expected = [
        passage_id
        for version in sorted(docs, key=lambda v: v.document_id)
        for passage_id in version.passage_ids
    ]
    for support_limit, count in ((0, 0), (3, 3), (10, 10)):
        hit = (await search(client, "lambda", supportLimit=support_limit))["hits"][0]
        assert hit["evidenceIds"] == expected[:count]
        assert hit["status"] == "SUPPORTED"  # even when no evidence is asked for
    assert (await search(client, "lambda"))["hits"][0]["evidenceIds"] == expected[:3]
    for bad in (-1, 11):
        error = await error_of(client, "lambda", supportLimit=bad)
        assert error["extensions"]["code"] == "MALFORMED"
        assert "supportLimit" in error["message"]


async def test_step6_nothing_outside_the_scope_appears_in_evidence(
    client: Client, builder: GraphBuilder, graph: Graph
) -> None:
    await builder.version("globex", ["Mu in globex."], mentions={"Mu": [0]})
    acme = await builder.version("acme", ["Mu in acme."], mentions={"Mu": [0]})
    await apply_schema(graph, TEST_DIMENSION)
    client.embedder.script("mu", axis(0))
    body = await client.execute(
        SEARCH_WITH_EVIDENCE, {"query": "mu", "scope": {"workspaces": ["acme"]}}
    )
    evidence = body["data"]["searchEntities"][0]["evidence"]
    assert [p["id"] for p in evidence] == acme.passage_ids
    assert {p["document"]["workspace"] for p in evidence} == {"acme"}


async def test_arguments_out_of_range_are_malformed_naming_the_argument(client: Client) -> None:
    for variables, argument in (
        ({"limit": 0}, "limit"),
        ({"limit": 101}, "limit"),
        ({"supportLimit": 11}, "supportLimit"),
        ({"labels": []}, "labels"),
    ):
        error = await error_of(client, "x", **variables)
        assert error["extensions"]["code"] == "MALFORMED"
        assert argument in error["message"]
    error = await error_of(client, "x" * 1001)
    assert error["extensions"]["code"] == "MALFORMED"


# Round trips --------------------------------------------------------------------------------


async def test_search_with_evidence_text_and_documents_costs_the_same_reads_for_limit_50_as_5(
    client: Client, builder: GraphBuilder, graph: Graph
) -> None:
    names = [f"Nu {i:02d}" for i in range(60)]
    await builder.version(
        "acme", [f"{n} text." for n in names], mentions={n: [i] for i, n in enumerate(names)}
    )
    await apply_schema(graph, TEST_DIMENSION)
    counts = {}
    for limit in (5, 5, 5, 50):
        client.embedder.script("nu", axis(0))
        body = await client.execute(SEARCH_WITH_EVIDENCE, {"query": "nu", "limit": limit})
        assert len(body["data"]["searchEntities"]) == limit
        assert body["data"]["searchEntities"][0]["evidence"][0]["document"]["title"] == "doc"
        counts[limit] = len(client.statements)
    # Once the index catalog is kept (tests/test_index_catalog_freshness.py), one search
    # statement that also carries the evidence text.
    assert counts == {5: 1, 50: 1}, client.statements


async def test_a_search_that_selects_no_evidence_reads_no_passage_text(
    client: Client, builder: GraphBuilder, graph: Graph
) -> None:
    await builder.version("acme", ["Xi."], mentions={"Xi": [0]})
    await apply_schema(graph, TEST_DIMENSION)
    await search(client, "xi")
    assert client.search_parameters["withText"] is False
    assert len(client.statements) == 2


async def test_evidence_the_search_did_not_read_is_loaded_when_the_field_is_resolved(
    builder: GraphBuilder, graph: Graph
) -> None:
    """`EntityHit.evidence` is plain data; were it ever resolved for a hit whose search did
    not read the passages, it loads them (in order, visible ones only) through the loaders."""
    version = await builder.version("acme", ["Ada one.", "Ada two."], mentions={"Ada": [0, 1]})
    scope = Scope(("acme",))
    record = EntityHitRecord(
        entity=EntityRecord(builder.entity_id("Ada"), "Ada", ("Person",), None),
        score=1.0,
        lexical_rank=1,
        semantic_rank=None,
        supported=True,
        evidence_ids=(version.passage_ids[1], version.passage_ids[0], new_id()),
        passages=(),
    )
    hit = EntityHit.from_record(record, scope, create_loaders(graph, scope), with_passages=False)
    passages = await cast("Awaitable[list[Passage]]", hit.evidence)
    assert [p.id for p in passages] == [version.passage_ids[1], version.passage_ids[0]]
    assert [p.text for p in passages] == ["Ada two.", "Ada one."]
