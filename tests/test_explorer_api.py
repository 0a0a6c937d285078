"""What the API adds for the evidence explorer (issue 40, docs/explorer.md): `nameSuggestions`,
a "did you mean" from the names in scope by Lucene's fuzzy match (§3 "Search that forgives"),
offered beside a search and never in its place. (`grantedWorkspaces` under AUTH_MODE=none,
which the scope panel lists, is tested with the rest of that field in
tests/test_granted_workspaces.py.)

Each rule on the app in-process over the session's Neo4j, its statements counted and planned."""

from __future__ import annotations

import re
from typing import Any

import neo4j
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from graph.driver import Graph
from graph.graph_schema import apply_schema
from retrieval.fuzzy_words import closest, fuzzy_terms
from tests.conftest import TEST_DIMENSION, Client
from tests.support.graph_builder import GraphBuilder
from tests.test_statement_plans import plans_of, whole_store_reads

SUGGEST = """
query($query: String!, $scope: ScopeInput, $labels: [String!], $limit: Int! = 5) {
  nameSuggestions(query: $query, scope: $scope, labels: $labels, limit: $limit)
}
"""
SEARCH = """
query($query: String!) {
  searchEntities(query: $query, mode: LEXICAL) { entity { name } }
  nameSuggestions(query: $query)
}
"""


async def carol(builder: GraphBuilder, graph: Graph) -> str:
    """A few names of A Christmas Carol in workspace `carol`, one in workspace `other`; the id
    of the Carol's document."""
    version = await builder.version(
        "carol",
        [
            "Ebenezer Scrooge kept the counting-house.",
            "Bob Cratchit was his clerk; Tiny Tim his son.",
            "Old Fezziwig kept a warehouse in 1843.",
        ],
        title="A Christmas Carol",
        mentions={
            "Ebenezer Scrooge": [0],
            "Bob Cratchit": [1],
            "Tiny Tim": [1],
            "Old Fezziwig": [2],
        },
    )
    await builder.version(
        "other", ["Scrooge McDuck swims in coins."], mentions={"Scrooge McDuck": [0]}
    )
    await apply_schema(graph, TEST_DIMENSION)
    return version.document_id


async def suggested(client: Client, query: str, **variables: Any) -> list[str]:
    body = await client.execute(SUGGEST, {"query": query, **variables})
    assert "errors" not in body, body
    names: list[str] = body["data"]["nameSuggestions"]
    return names


async def test_a_misspelt_name_is_offered_and_the_search_itself_is_unchanged(
    client: Client, builder: GraphBuilder, graph: Graph
) -> None:
    await carol(builder, graph)
    body = await client.execute(SEARCH, {"query": "Ebenezer Scroge"})
    assert body["data"]["nameSuggestions"][0] == "Ebenezer Scrooge"
    # The search answers the words as written: the suggestion is not substituted.
    lexical = await client.execute(SEARCH, {"query": "Scroge"})
    assert lexical["data"]["searchEntities"] == []
    assert "Ebenezer Scrooge" in lexical["data"]["nameSuggestions"]


async def test_a_name_outside_the_scope_is_never_offered(
    client: Client, builder: GraphBuilder, graph: Graph
) -> None:
    document = await carol(builder, graph)
    everywhere = await suggested(client, "Scroge")
    assert sorted(everywhere) == ["Ebenezer Scrooge", "Scrooge McDuck"]
    assert await suggested(client, "Scroge", scope={"workspaces": ["carol"]}) == [
        "Ebenezer Scrooge"
    ]
    assert await suggested(client, "Scroge", scope={"workspaces": ["other"]}) == ["Scrooge McDuck"]
    # A scope of documents: the index reads every workspace, the scope decides.
    assert await suggested(client, "Scroge", scope={"documentIds": [document]}) == [
        "Ebenezer Scrooge"
    ]
    # Another pipeline's graph, without owner keys in the index: the scope decides too.
    await builder.set_owner_keys(None, [builder.entity_id("Scrooge McDuck")])
    assert await suggested(client, "Scroge", scope={"workspaces": ["carol"]}) == [
        "Ebenezer Scrooge"
    ]


async def test_words_of_three_characters_allow_one_edit_longer_ones_two(
    client: Client, builder: GraphBuilder, graph: Graph
) -> None:
    await carol(builder, graph)
    assert await suggested(client, "Tom") == ["Tiny Tim"]  # one edit from "tim"
    assert await suggested(client, "Tam Tom") == ["Tiny Tim"]
    assert await suggested(client, "Kum Kom") == []  # each two edits from "tim"
    assert await suggested(client, "Tany") == ["Tiny Tim"]  # two edits from its stem "tini"
    assert await suggested(client, "Crotchet") == ["Bob Cratchit"]  # two edits
    assert await suggested(client, "Fezziwog") == ["Old Fezziwig"]
    assert await suggested(client, "Fazziwog") == ["Old Fezziwig"]  # two edits
    assert await suggested(client, "Fazzowog") == []  # three


async def test_short_words_and_numbers_must_match_as_written(
    client: Client, builder: GraphBuilder, graph: Graph
) -> None:
    await builder.version(
        "carol",
        ["Al and Ned met in 1843."],
        mentions={"Al": [0], "Ned": [0], "Almanac 1843": [0]},
    )
    await apply_schema(graph, TEST_DIMENSION)
    assert await suggested(client, "Ed") == []  # two letters: one edit is half the word
    assert await suggested(client, "Al") == ["Al"]
    assert await suggested(client, "1842") == []  # a year is not a typo of the next
    assert await suggested(client, "1843") == ["Almanac 1843"]


async def test_a_query_of_function_words_reads_nothing(
    client: Client, builder: GraphBuilder, graph: Graph
) -> None:
    await carol(builder, graph)
    assert await suggested(client, "who is the") == []
    assert client.statements == []


async def test_each_name_is_offered_once_best_first_and_at_most_limit(
    client: Client, builder: GraphBuilder, graph: Graph
) -> None:
    await builder.version(
        "carol",
        ["Scrooge, Scrooge and Scrooge's nephew."],
        mentions={"Scrooge": [0], "Scrooge's Nephew": [0]},
        labels={"Scrooge": ["Person", "Character"], "Scrooge's Nephew": ["Person"]},
    )
    await apply_schema(graph, TEST_DIMENSION)
    names = await suggested(client, "Scrooge")
    assert names == ["Scrooge", "Scrooge's Nephew"]  # the shorter name matches more closely
    assert await suggested(client, "Scrooge", limit=1) == ["Scrooge"]
    refused = await client.execute(SUGGEST, {"query": "Scrooge", "limit": 21})
    assert refused["errors"][0]["extensions"]["code"] == "MALFORMED"


def test_the_names_nearest_to_more_of_the_words_come_first_then_those_with_fewer_other_words() -> (
    None
):
    names = ["SCROOGE'S FUNERAL", "SCROOGE AND MARLEY", "EBENEZER SCROOGE", "SCROOGE", "SCROOGE"]
    assert closest("Scroge", names, 5) == [
        "SCROOGE",
        "EBENEZER SCROOGE",
        "SCROOGE'S FUNERAL",
        "SCROOGE AND MARLEY",
    ]
    assert closest("Ebenezer Scroge", names, 2) == ["EBENEZER SCROOGE", "SCROOGE"]
    assert closest("Marly Scroge", names, 1) == ["SCROOGE AND MARLEY"]


async def test_the_labels_named_are_the_only_ones_read(
    client: Client, builder: GraphBuilder, graph: Graph
) -> None:
    await builder.version(
        "carol",
        ["Marley's ghost, and Marley's door knocker."],
        mentions={"Jacob Marley": [0], "Marley Knocker": [0]},
        labels={"Jacob Marley": ["Person"], "Marley Knocker": ["Thing"]},
    )
    await apply_schema(graph, TEST_DIMENSION)
    # "marly" is two edits from "marlei", the stem the index holds for "marley"
    assert sorted(await suggested(client, "Marly")) == ["Jacob Marley", "Marley Knocker"]
    assert await suggested(client, "Marly", labels=["Thing"]) == ["Marley Knocker"]
    unknown = await client.execute(SUGGEST, {"query": "Marly", "labels": ["Nope"]})
    assert unknown["errors"][0]["extensions"]["code"] == "INDEX_NOT_READY"


async def test_no_suggestion_read_scans_every_node(
    client: Client, builder: GraphBuilder, graph: Graph, driver: neo4j.AsyncDriver
) -> None:
    await carol(builder, graph)
    for scope in (None, {"workspaces": ["carol"]}):
        variables = {"query": "Scroge", "scope": scope}
        for plan in await plans_of(driver, client, SUGGEST, variables):
            assert not whole_store_reads(plan), (scope, plan)


# What reaches Lucene: plain lowercase words, each perhaps with the one operator the service
# adds, `~1` or `~2`; nothing of the query's own syntax.
_TERMS = re.compile(r"(?:[^\W_]+(?:~[12])?(?: |$))*")


@settings(max_examples=300, database=None)
@given(st.text(max_size=80))
def test_only_plain_words_and_their_edits_reach_lucene(query: str) -> None:
    terms = fuzzy_terms(query)
    assert _TERMS.fullmatch(terms), terms
    assert terms == terms.lower()


def hostile_queries() -> list[str]:
    """Queries of any characters (Lucene's syntax, quotes, control characters, other
    scripts), drawn here and sent by the async test below."""
    drawn: list[str] = []

    @settings(max_examples=40, database=None, suppress_health_check=list(HealthCheck))
    @given(
        st.text(
            # No lone surrogate: a client cannot encode one as UTF-8, and one sent as a JSON
            # escape is refused at the door before any field (tests/test_odd_input.py).
            st.one_of(
                st.sampled_from('~*?:"()[]{}^\\/!+-&| AND OR NOT'),
                st.characters(codec="utf-8"),
            ),
            min_size=1,
            max_size=40,
        )
    )
    def draw(query: str) -> None:
        drawn.append(query)

    draw()
    return drawn


async def test_any_query_is_answered_with_names_or_malformed_never_an_error_of_lucene(
    client: Client, builder: GraphBuilder, graph: Graph
) -> None:
    await carol(builder, graph)
    for query in [*hostile_queries(), "scroge~0.5 AND name:*", "(tim"]:
        body = await client.execute(SUGGEST, {"query": query})
        if "errors" in body:
            codes = [error["extensions"]["code"] for error in body["errors"]]
            assert codes == ["MALFORMED"], (query, body)
        else:
            assert all(isinstance(name, str) for name in body["data"]["nameSuggestions"])
