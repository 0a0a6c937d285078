"""The lexical side of entity search (retrieval/lexical_rule.py, docs/retrieval-quality.md):
plain words only, function words and possessives dropped, the coverage rule, the opt-in
description field, and what the operator is told when the indexes disagree with the settings.
Pure rules first, then on the real Neo4j."""

from __future__ import annotations

import logging
import re
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from api.settings import Settings, SettingsError
from graph.driver import Graph
from graph.graph_schema import apply_schema
from graph.index_catalog import read_index_catalog
from graph.lexical_index import ENTITY_ANALYZER, LexicalIndexSpec
from retrieval.lexical_rule import LexicalRule, content_words, lexical_request
from retrieval.query_words import plain_words
from tests.conftest import TEST_DIMENSION, Client, serving
from tests.support.graph_builder import GraphBuilder, unit_vector
from tests.test_entity_search import SEARCH, search

PLAIN_WORDS = re.compile(r"[^\W_]+( [^\W_]+)*")


def axis(index: int) -> list[float]:
    return unit_vector(TEST_DIMENSION, index)


# Pure rules -----------------------------------------------------------------------------------


def test_content_words_drop_function_words_possessives_and_one_letter_fragments() -> None:
    assert content_words("Who is Taylor Cruz's mentor?") == ["taylor", "cruz", "mentor"]
    assert content_words("Scrooge’s NEPHEW") == ["scrooge", "nephew"]
    assert content_words('ada~2 "lovelace"^4') == ["ada", "2", "lovelace", "4"]  # digits stay
    assert content_words("who is it, and where?") == []
    seed = LexicalRule(stop_words=False, possessives=False)
    assert content_words("Who is Cruz's mentor?", seed) == ["who", "is", "cruz", "s", "mentor"]


def test_a_hit_must_hold_half_the_distinct_content_words_rounded_up() -> None:
    def required(query: str, coverage: float = 0.5) -> int:
        request = lexical_request(query, LexicalRule(min_coverage=coverage))
        assert request is not None
        return request.required

    assert [required(q) for q in ("red", "red lion", "red lion inn", "red lion inn yard")] == [
        1,
        1,
        2,
        2,
    ]
    assert required("red red red lion lion inn") == 2  # distinct words count
    assert required("red lion inn", 0.0) == 0
    assert required("red lion inn", 1.0) == 3
    nothing = lexical_request("the of and who")  # looks for that exact name only
    assert nothing is not None and nothing.text == "" and nothing.required == 0


@given(st.text(max_size=80))
def test_only_plain_lowercase_words_of_the_query_reach_the_index(query: str) -> None:
    request = lexical_request(query)
    if request is None or not request.text:
        return
    assert PLAIN_WORDS.fullmatch(request.text), request.text
    assert request.text == request.text.lower()
    # The plain words, split where letters meet digits, and letter-digit runs joined.
    assert set("".join(request.text.split())) <= set("".join(plain_words(query)))


# On the real Neo4j ----------------------------------------------------------------------------


async def lexical_names(client: Client, query: str) -> list[str]:
    names: list[str] = (await search(client, query, mode="LEXICAL"))["names"]
    return names


async def test_lucene_syntax_has_no_effect_on_what_the_index_receives_or_returns(
    client: Client, builder: GraphBuilder, graph: Graph
) -> None:
    names = ["Ada Lovelace", "Ada Byron", "Lovelace Trust", "Charles Babbage"]
    await builder.version("acme", names, mentions={n: [i] for i, n in enumerate(names)})
    await apply_schema(graph, TEST_DIMENSION)
    plain = await search(client, "who is ada lovelace", mode="LEXICAL")
    assert plain["names"][0] == "Ada Lovelace"
    for noisy in (
        'Who is "Ada Lovelace"?',
        "who:is ada* AND lovelace~",
        "(who is) +ada -lovelace^",
        "WHO IS ADA OR LOVELACE",
        "who is ada/lovelace\\",
        '"who is [ada TO lovelace}',
        "who's ada lovelace",
    ):
        found = await search(client, noisy, mode="LEXICAL")
        # Only plain words reach Lucene, on the field they match (issue 25 §2: `name:(…)`).
        assert client.search_parameters["lexicalTargets"][0]["query"] == "name:(ada lovelace)"
        assert found["hits"] == plain["hits"], noisy
    # A boost's digits are a plain word like any other (digits name things: "Apollo 11").
    boosted = await search(client, "ada lovelace^2", mode="LEXICAL")
    query = client.search_parameters["lexicalTargets"][0]["query"]
    assert query == "name:(ada lovelace 2 lovelace2)"
    assert boosted["names"][0] == "Ada Lovelace"


async def test_a_name_asked_for_with_extra_words_comes_back_first(
    client: Client, builder: GraphBuilder, graph: Graph
) -> None:
    names = ["Ada Lovelace", "Charles Babbage", "Analytical Engine", "Lovelace Notes Society"]
    await builder.version(
        "acme",
        names,
        mentions={n: [i] for i, n in enumerate(names)},
        # The queries embed next to Babbage: only the lexical side can put Ada first. Ada and
        # the society tie semantically (ranks 3 and 4, by id), so random ids cannot hand the
        # society two semantic ranks more than Ada, which RRF would let outweigh the lexical.
        vectors={
            "Charles Babbage": axis(0),
            "Analytical Engine": axis(1),
            "Ada Lovelace": axis(4),
            "Lovelace Notes Society": axis(4),
        },
    )
    await apply_schema(graph, TEST_DIMENSION)
    for query in (
        "tell me who Ada Lovelace was",
        "ADA LOVELACE",
        "ada lovelace's work on the engine",
        "Who is Ada Lovelace?",
    ):
        found = await search(client, query, axis(0))
        assert found["names"][0] == "Ada Lovelace", (query, found["names"])
        assert found["hits"][0]["lexicalRank"] == 1, query
        assert "Charles Babbage" in found["names"][:3], query  # the semantic side still counts


async def test_names_with_a_possessive_hold_the_plain_word(
    client: Client, builder: GraphBuilder, graph: Graph
) -> None:
    names = ["Scrooge's Nephew", "Scrooge", "Fezziwig's Warehouse", "Nephew Fred"]
    await builder.version("acme", names, mentions={n: [i] for i, n in enumerate(names)})
    await apply_schema(graph, TEST_DIMENSION)
    for query in ("who is Scrooge's nephew?", "scrooge nephew", "SCROOGE’S NEPHEW"):
        assert (await lexical_names(client, query))[0] == "Scrooge's Nephew", query
    assert sorted(await lexical_names(client, "scrooge")) == ["Scrooge", "Scrooge's Nephew"]
    assert await lexical_names(client, "Fezziwig's") == ["Fezziwig's Warehouse"]


async def test_a_query_of_common_words_alone_does_not_flood_the_lexical_list(
    client: Client, builder: GraphBuilder, graph: Graph
) -> None:
    names = ["The Tower", "The Bridge", "Of Mice and Men", "Where It Is", "Who Is Who"]
    await builder.version("acme", names, mentions={n: [i] for i, n in enumerate(names)})
    await apply_schema(graph, TEST_DIMENSION)
    assert await lexical_names(client, "Who is it, and where is it?") == []
    # The index is not even read.
    assert client.search_parameters["lexicalTargets"][0]["query"] == ""
    hybrid = await search(client, "Who is it, and where is it?", axis(0))
    assert hybrid["hits"] and all(hit["lexicalRank"] is None for hit in hybrid["hits"])
    # A description sharing one generic word with a name is not a lexical hit either...
    assert await lexical_names(client, "the tall tower by the old harbour") == []
    # ...while the name itself is.
    assert await lexical_names(client, "the tower") == ["The Tower"]


async def test_coverage_counts_whole_words_of_the_name(
    client: Client, builder: GraphBuilder, graph: Graph
) -> None:
    names = ["Red Lion Inn", "Red Square", "Lion King", "Redwood Lion"]
    await builder.version("acme", names, mentions={n: [i] for i, n in enumerate(names)})
    await apply_schema(graph, TEST_DIMENSION)
    assert sorted(await lexical_names(client, "red lion")) == sorted(names)
    # Three words: a name must hold two. "Redwood" does not hold the word "red".
    assert await lexical_names(client, "the red lion inn") == ["Red Lion Inn"]
    assert await lexical_names(client, "red lion yard") == ["Red Lion Inn"]


async def test_retrieval_lexical_min_coverage_zero_counts_any_word_as_the_seed_first_did(
    neo4j_uri: str, builder: GraphBuilder, graph: Graph
) -> None:
    names = ["Red Lion Inn", "Red Square", "Lion King"]
    await builder.version("acme", names, mentions={n: [i] for i, n in enumerate(names)})
    await apply_schema(graph, TEST_DIMENSION)
    async with serving(neo4j_uri, graph, RETRIEVAL_LEXICAL_MIN_COVERAGE="0") as client:
        assert sorted(await lexical_names(client, "red lion inn")) == sorted(names)


async def test_description_is_matched_only_when_retrieval_lexical_fields_says_so(
    neo4j_uri: str, client: Client, builder: GraphBuilder, graph: Graph
) -> None:
    await builder.version(
        "acme",
        ["Sam Rivera.", "Alex Mercer."],
        mentions={"Sam Rivera": [0], "Alex Mercer": [1]},
        descriptions={
            "Sam Rivera": "The signals expert who disabled the surveillance drone.",
            "Alex Mercer": "A cybersecurity expert and mentor.",
        },
    )
    await apply_schema(graph, TEST_DIMENSION)
    assert await lexical_names(client, "who disabled the drone?") == []  # name only
    both = LexicalIndexSpec(("name", "description"))
    await apply_schema(graph, TEST_DIMENSION, lexical=both)
    async with serving(neo4j_uri, graph, RETRIEVAL_LEXICAL_FIELDS="name,description") as opted:
        assert await lexical_names(opted, "who disabled the drone?") == ["Sam Rivera"]
        assert opted.search_parameters["lexicalTargets"][0]["fields"] == ["name", "description"]
        # The coverage rule reads both fields: "expert" alone is one word of three.
        assert await lexical_names(opted, "expert on drone surveillance") == ["Sam Rivera"]


async def test_indexes_that_disagree_with_the_settings_are_reported_with_the_fix(
    neo4j_uri: str, builder: GraphBuilder, graph: Graph, caplog: pytest.LogCaptureFixture
) -> None:
    await builder.version("acme", ["Sam Rivera."], mentions={"Sam Rivera": [0]})
    await apply_schema(graph, TEST_DIMENSION)  # FULLTEXT on name only
    expected = (
        "RETRIEVAL_LEXICAL_FIELDS=name,description but label Person's FULLTEXT index covers"
        " only name: run `evidencegraph schema apply`"
    )
    caplog.set_level(logging.WARNING)
    async with serving(neo4j_uri, graph, RETRIEVAL_LEXICAL_FIELDS="name,description") as client:
        assert expected in caplog.messages  # at start
        caplog.clear()
        # Searching still works, on the index there is, and does not repeat the warning.
        assert await lexical_names(client, "sam rivera") == ["Sam Rivera"]
        assert client.search_parameters["lexicalTargets"][0]["fields"] == ["name"]
        assert expected not in caplog.messages
        # A label that appears while serving is reported by the first search that reads it.
        await builder.version(
            "acme",
            ["Rivera Unit."],
            mentions={"Rivera Unit": [0]},
            labels={"Rivera Unit": ["Unit"]},
        )
        await apply_schema(graph, TEST_DIMENSION, labels=["Unit"])
        await lexical_names(client, "rivera")
        assert [m for m in caplog.messages if "label Unit's" in m] == [
            expected.replace("Person", "Unit")
        ]
    # `schema apply` with the setting replaces the index; nothing is left to report.
    report = await apply_schema(
        graph, TEST_DIMENSION, lexical=LexicalIndexSpec(("name", "description"))
    )
    assert "entity_name_fulltext_Person" in report.created
    catalog = await read_index_catalog(graph)
    assert catalog.lexical_mismatches(LexicalIndexSpec(("name", "description"))) == []
    person = catalog.fulltext_index("Person", ("name", "description"))
    # (and the owner key: candidates come from the caller's workspaces, issue 25 §2)
    assert person is not None and person.properties == ("name", "description", "workspaceKey")


async def test_schema_apply_replaces_a_lexical_index_with_another_analyzer(graph: Graph) -> None:
    builder = GraphBuilder(graph, TEST_DIMENSION)
    await builder.version("acme", ["Ada."], mentions={"Ada": [0]})
    await graph.write(
        "CREATE FULLTEXT INDEX entity_name_fulltext_Person FOR (n:Person) ON EACH [n.name]"
        " OPTIONS {indexConfig: {`fulltext.analyzer`: 'standard-no-stop-words'}}",
        {},
    )
    catalog = await read_index_catalog(graph)
    [problem] = catalog.lexical_mismatches(LexicalIndexSpec(), ["Person"])
    assert "standard-no-stop-words" in problem and "evidencegraph schema apply" in problem
    report = await apply_schema(graph, TEST_DIMENSION)
    assert "entity_name_fulltext_Person" in report.created
    person = (await read_index_catalog(graph)).fulltext_index("Person")
    assert person is not None and person.analyzer == ENTITY_ANALYZER
    # Applied again, it is left alone.
    assert "entity_name_fulltext_Person" not in (await apply_schema(graph, TEST_DIMENSION)).created


def test_the_lexical_settings_are_read_and_checked() -> None:
    default = Settings.from_environ({})
    assert default.lexical == LexicalRule(("name",), 0.5)
    both = Settings.from_environ({"RETRIEVAL_LEXICAL_FIELDS": "description,name"})
    assert both.lexical.fields == ("name", "description")
    for key, value in (
        ("RETRIEVAL_LEXICAL_FIELDS", "description"),
        ("RETRIEVAL_LEXICAL_FIELDS", "name,title"),
        ("RETRIEVAL_LEXICAL_MIN_COVERAGE", "1.5"),
    ):
        with pytest.raises(SettingsError, match=key):
            Settings.from_environ({key: value})


async def test_search_query_text_is_unchanged_by_the_rule(client: Client) -> None:
    """The rule changes the lexical side only: MALFORMED is still about the plain words."""
    client.embedder.script("the", axis(0))
    body: dict[str, Any] = await client.execute(SEARCH, {"query": "the"})
    assert "errors" not in body, body  # a stop word alone is a valid (semantic) query
    client.embedder.script("?!", axis(0))
    body = await client.execute(SEARCH, {"query": "?!"})
    assert body["errors"][0]["extensions"]["code"] == "MALFORMED"
