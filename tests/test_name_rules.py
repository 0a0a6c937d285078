"""Names are found by their names (contract §3): the lexical list's order across labels, exact
names first in LEXICAL and HYBRID, names with hyphens, digits and apostrophes, names made only
of function words or single letters. Pure rules first, then on the real Neo4j."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from graph.driver import Graph
from graph.graph_schema import apply_schema
from graph.lexical_index import LexicalIndexSpec
from retrieval.lexical_order import FusedHit, LexicalCandidate, hybrid_order, lexical_order
from retrieval.lexical_rule import content_words, joined_forms, lexical_request
from retrieval.name_match import completeness, is_exact_name
from tests.conftest import TEST_DIMENSION, Client, serving
from tests.support.graph_builder import GraphBuilder, unit_vector
from tests.test_entity_search import search


def axis(index: int) -> list[float]:
    return unit_vector(TEST_DIMENSION, index)


def toward_axis_0(similarity: float) -> list[float]:
    """A unit vector whose cosine with axis(0) is `similarity` (the rest along axis(7))."""
    return [similarity, *[0.0] * (TEST_DIMENSION - 2), (1 - similarity**2) ** 0.5]


# Pure rules -----------------------------------------------------------------------------------


def test_lexical_order_puts_an_exact_name_first_then_completeness_then_score_then_id() -> None:
    order = lexical_order(
        [
            LexicalCandidate("e1", exact=False, completeness=0.5, score=9.0),  # high BM25
            LexicalCandidate("e2", exact=True, completeness=1.0, score=1.0),
            LexicalCandidate("e3", exact=False, completeness=1.0, score=0.5),
            LexicalCandidate("e0", exact=False, completeness=0.5, score=9.0),
            LexicalCandidate("e4", exact=False, completeness=0.5, score=2.0),
        ]
    )
    assert [c.id for c in order] == ["e2", "e3", "e0", "e1", "e4"]


def test_lexical_order_keeps_an_entity_of_several_labels_once_at_its_best_place() -> None:
    order = lexical_order(
        [
            LexicalCandidate("paris", exact=True, completeness=1.0, score=0.2),  # Event index
            LexicalCandidate("other", exact=False, completeness=1.0, score=5.0),
            LexicalCandidate("paris", exact=True, completeness=1.0, score=0.9),  # Geo index
        ]
    )
    assert [(c.id, c.score) for c in order] == [("paris", 0.9), ("other", 5.0)]


def test_hybrid_order_puts_exact_names_first_although_rrf_ranks_them_lower() -> None:
    k = 60
    exact = FusedHit("z", exact=True, score=1 / (k + 1) + 1 / (k + 9))
    both_lists = FusedHit("a", exact=False, score=1 / (k + 2) + 1 / (k + 1))
    assert both_lists.score > exact.score  # RRF alone would put it first
    tie = FusedHit("b", exact=False, score=both_lists.score)
    assert [h.id for h in hybrid_order([tie, both_lists, exact])] == ["z", "a", "b"]


def test_an_exact_name_ignores_case_punctuation_and_a_possessive() -> None:
    for query, name in (
        ("scrooge", "SCROOGE"),
        ("Scrooge", "Scrooge's"),
        ("scrooges", "Scrooge's"),
        ("Scrooge's", "Scrooge"),
        ("covid 19", "COVID-19"),
        ("covid19", "COVID-19"),
        ("COVID-19", "covid19"),
        ("f16", "F-16"),
        ("gpt 4", "GPT-4"),
        ("the who", "The Who"),
        ("u.s.a.", "U.S.A."),
        ("mr fezziwig", "MR. FEZZIWIG"),
    ):
        assert is_exact_name(query, name), (query, name)
    for query, name in (
        ("scrooge", "Ebenezer Scrooge"),
        ("fezziwig", "MR. FEZZIWIG"),
        ("scrooge", "Scrooges"),
        ("covid 19", "COVID-19 Vaccine"),
        ("it", "Items"),
    ):
        assert not is_exact_name(query, name), (query, name)


def test_completeness_is_the_share_of_words_query_and_name_have_in_common() -> None:
    assert completeness(["scrooge"], ["scrooge"]) == 1.0
    assert completeness(["scrooge"], ["scrooge", "transformation"]) == 0.5
    assert completeness([], []) == 0.0


def test_hyphens_and_digits_split_into_the_words_the_index_holds() -> None:
    assert content_words("COVID-19") == content_words("covid 19") == ["covid", "19"]
    assert content_words("covid19") == ["covid", "19"]
    assert content_words("F-16") == ["16"]  # a one-letter fragment goes, a digit stays
    assert content_words("The Who") == content_words("It") == content_words("Q") == []
    assert joined_forms("covid 19") == ["covid19"]
    assert joined_forms("F-16 jets") == ["f16"]
    request = lexical_request("COVID-19")
    assert request is not None and request.text == "covid 19 covid19"


# On the real Neo4j ----------------------------------------------------------------------------


async def names_of(
    client: Client, query: str, mode: str, vector: list[float] | None = None
) -> list[str]:
    found: dict[str, Any] = await search(client, query, vector, mode=mode)
    names: list[str] = found["names"]
    return names


async def test_a_query_equal_to_an_entitys_name_puts_it_first_in_lexical_and_hybrid_mode(
    client: Client, builder: GraphBuilder, graph: Graph
) -> None:
    # The case: few Event names hold "scrooge", so the Event index scores them higher
    # than the Person index scores SCROOGE; and the query embeds next to the Event.
    people = ["SCROOGE", "EBENEZER SCROOGE", "MR. SCROOGE", "SCROOGE'S NEPHEW", "SCROOGE'S CLERK"]
    events = ["SCROOGE'S TRANSFORMATION"]
    names = people + events + ["FEZZIWIG", "MR. FEZZIWIG", "FEZZIWIG'S BALL", "OLD FEZZIWIG"]
    labels: dict[str, Sequence[str]] = {n: ["Event"] for n in [*events, "FEZZIWIG'S BALL"]}
    # Semantic ranks along axis(0), strictly ordered (a tie would be broken by the random ids,
    # and SCROOGE's rank with it): the Event first, SCROOGE 7th.
    by_similarity = [
        *("SCROOGE'S TRANSFORMATION", "MR. FEZZIWIG", "EBENEZER SCROOGE", "OLD FEZZIWIG"),
        *("FEZZIWIG", "FEZZIWIG'S BALL", "SCROOGE", "MR. SCROOGE"),
        *("SCROOGE'S NEPHEW", "SCROOGE'S CLERK"),
    ]
    vectors = {name: toward_axis_0(1 - rank / 10) for rank, name in enumerate(by_similarity)}
    await builder.version(
        "acme",
        ["text"],
        mentions={name: [0] for name in names},
        labels=labels,
        vectors=vectors,
    )
    await apply_schema(graph, TEST_DIMENSION)
    for query, expected in (
        ("Scrooge", "SCROOGE"),
        ("scrooge", "SCROOGE"),
        ("Fezziwig", "FEZZIWIG"),
        ("Mr Scrooge", "MR. SCROOGE"),
        ("scrooge's nephew", "SCROOGE'S NEPHEW"),
    ):
        for mode in ("LEXICAL", "HYBRID"):
            found = await names_of(client, query, mode, axis(0))
            assert found[0] == expected, (query, mode, found)
    # HYBRID: SCROOGE is only 7th semantically; RRF alone would put the Event first.
    hybrid = await search(client, "Scrooge", axis(0), limit=4)
    assert hybrid["names"][0] == "SCROOGE"
    assert hybrid["hits"][0]["lexicalRank"] == 1
    assert hybrid["hits"][1]["score"] > hybrid["hits"][0]["score"]
    # Then names the query covers more completely, whatever their label's BM25 statistics.
    lexical = await names_of(client, "Scrooge", "LEXICAL")
    assert lexical.index("SCROOGE'S TRANSFORMATION") > lexical.index("SCROOGE")


async def test_the_lexical_list_is_each_entity_once_at_its_best_place_across_labels(
    client: Client, builder: GraphBuilder, graph: Graph
) -> None:
    names = ["Paris", "Paris Peace Conference", "Paris Opera"]
    await builder.version(
        "acme",
        ["text"],
        mentions={name: [0] for name in names},
        labels={"Paris": ["Geo", "Event"], "Paris Peace Conference": ["Event"]},
    )
    await apply_schema(graph, TEST_DIMENSION)
    found = await search(client, "paris", mode="LEXICAL")
    assert found["names"][0] == "Paris"
    assert found["names"].count("Paris") == 1
    assert [hit["lexicalRank"] for hit in found["hits"]] == [1, 2, 3]


async def test_names_with_hyphens_digits_or_apostrophes_match_queries_with_or_without_punctuation(
    client: Client, builder: GraphBuilder, graph: Graph
) -> None:
    names = [
        "COVID-19",
        "COVID-19 Vaccine",
        "F-16",
        "GPT-4",
        "GPT4 Paper",
        "Apollo 11",
        "Apollo 13",
        "Scrooge's",
        "Scrooge",
        "Spider-Man",
        "Spider Man 2",
        "R2-D2",
    ]
    await builder.version(
        "acme",
        ["text"],
        mentions={name: [0] for name in names},
        vectors={n: axis(7) for n in names},
    )
    await apply_schema(graph, TEST_DIMENSION)
    for query, expected in (
        ("COVID-19", "COVID-19"),
        ("covid 19", "COVID-19"),
        ("covid19", "COVID-19"),
        ("covid 19 vaccine", "COVID-19 Vaccine"),
        ("F-16", "F-16"),
        ("f16", "F-16"),
        ("F 16", "F-16"),
        ("GPT-4", "GPT-4"),
        ("gpt 4", "GPT-4"),
        ("gpt-4 paper", "GPT4 Paper"),
        ("apollo-11", "Apollo 11"),
        ("Scrooges", "Scrooge's"),
        ("Scrooge's", "Scrooge"),  # both are exact; the tie breaks by id
        ("spider man", "Spider-Man"),
        ("r2d2", "R2-D2"),
        ("R2 D2", "R2-D2"),
    ):
        for mode in ("LEXICAL", "HYBRID"):
            found = await names_of(client, query, mode, axis(0))
            assert found and is_exact_name(query, found[0]), (query, mode, found)
            assert expected in found, (query, mode, found)
    # Longer queries find them lexically too, written either way.
    assert "COVID-19" in await names_of(client, "covid19 in 2020", "LEXICAL")
    assert "F-16" in await names_of(client, "the F16 jet", "LEXICAL")


async def test_a_name_made_only_of_function_words_or_single_letters_is_found_by_its_exact_name(
    client: Client, builder: GraphBuilder, graph: Graph
) -> None:
    names = ["The Who", "Who's Who", "It", "Q", "Q Branch", "A", "Will", "U.S.A.", "Items"]
    await builder.version(
        "acme",
        ["text"],
        mentions={name: [0] for name in names},
        vectors={n: axis(7) for n in names},
    )
    await apply_schema(graph, TEST_DIMENSION)
    for query, expected in (
        ("The Who", "The Who"),
        ("the who?", "The Who"),
        ("it", "It"),
        ("IT", "It"),
        ("Q", "Q"),
        ("a", "A"),
        ("Will", "Will"),
        ("u.s.a.", "U.S.A."),
        ("u s a", "U.S.A."),
    ):
        assert await names_of(client, query, "LEXICAL") == [expected], query
        assert (await names_of(client, query, "HYBRID", axis(0)))[0] == expected, query
    # Only the exact name: a question of function words is no name and finds nothing.
    assert await names_of(client, "who is it?", "LEXICAL") == []
    # No FULLTEXT index is read.
    assert client.search_parameters["lexicalTargets"][0]["query"] == ""


async def test_the_name_rules_hold_with_retrieval_lexical_fields_name_and_description(
    neo4j_uri: str, builder: GraphBuilder, graph: Graph
) -> None:
    names = ["Scrooge", "Scrooge's Transformation", "COVID-19", "It"]
    await builder.version(
        "acme",
        ["text"],
        mentions={name: [0] for name in names},
        descriptions={"Scrooge's Transformation": "Scrooge, Scrooge and Scrooge again."},
        labels={"Scrooge's Transformation": ["Event"]},
    )
    await apply_schema(graph, TEST_DIMENSION, lexical=LexicalIndexSpec(("name", "description")))
    async with serving(neo4j_uri, graph, RETRIEVAL_LEXICAL_FIELDS="name,description") as client:
        assert (await names_of(client, "scrooge", "LEXICAL"))[0] == "Scrooge"
        assert (await names_of(client, "covid19", "LEXICAL"))[0] == "COVID-19"
        assert await names_of(client, "it", "LEXICAL") == ["It"]


async def test_the_database_orders_the_lexical_list_as_the_pure_rule_does(
    client: Client, builder: GraphBuilder, graph: Graph
) -> None:
    names = [
        "Scrooge",
        "Ebenezer Scrooge",
        "Scrooge's Transformation",
        "Scrooge and Marley",
        "The Ghost of Christmas Past",
        "Ghost of Christmas Present",
        "Christmas Past",
        "Marley's Ghost",
        "Jacob Marley",
        "COVID-19 Ward",
        "Ward 19",
    ]
    labels: dict[str, Sequence[str]] = {
        "Scrooge's Transformation": ["Event"],
        "Marley's Ghost": ["Event", "Person"],
    }
    labels |= {"Christmas Past": ["Event"], "Ward 19": ["Geo"]}
    await builder.version("acme", ["text"], mentions={n: [0] for n in names}, labels=labels)
    await apply_schema(graph, TEST_DIMENSION)
    for query in (
        "scrooge",
        "Scrooge and Marley",
        "ghost of christmas past",
        "marley ghost",
        "covid 19 ward",
        "christmas",
    ):
        found = await search(client, query, mode="LEXICAL")
        assert found["hits"], query
        expected = lexical_order(
            LexicalCandidate(
                hit["entity"]["id"],
                is_exact_name(query, hit["entity"]["name"]),
                completeness(content_words(query), content_words(hit["entity"]["name"])),
                hit["score"],
            )
            for hit in found["hits"]
        )
        assert [hit["entity"]["id"] for hit in found["hits"]] == [c.id for c in expected], query
