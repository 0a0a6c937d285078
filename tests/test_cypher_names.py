"""Names never become Cypher (contract §5, §10): a relation type or label reaches Cypher text only
when it is a stored name made of letters, digits and `_`; every other name is a parameter.

Neo4j decodes `\\uXXXX` escapes before it reads a backtick-quoted name, so the six characters
`\\u0060` close a quoted name: these tests send exactly that, on the real Neo4j.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from graph.cypher_names import CypherNameRefused, cypher_name, is_plain_name
from graph.driver import Graph
from tests.conftest import Client
from tests.support.graph_builder import GraphBuilder
from tests.support.load_helpers import (
    Cli,
    bundle_line,
    entity,
    graph_counts,
    relation,
    write_bundle,
)
from tests.test_walk import edges, refusal, relate, walk

BACKTICK_ESCAPE = "\\u0060"  # the six characters \ u 0 0 6 0


async def _two_types(builder: GraphBuilder) -> str:
    await builder.version(
        "acme",
        ["Ada knows Bob.", "Ada likes Cy."],
        mentions={"Ada": [0, 1], "Bob": [0], "Cy": [1]},
        relations=[("Ada", "KNOWS", "Bob", [0]), ("Ada", "LIKES", "Cy", [1])],
    )
    return builder.entity_id("Ada")


async def test_a_relation_type_entry_holding_an_escaped_backtick_follows_nothing(
    client: Client, builder: GraphBuilder
) -> None:
    ada = await _two_types(builder)
    # Quoted and escaped, this entry reads `KNOWS`|`LIKES` to Neo4j: it followed both types.
    crafted = f"KNOWS{BACKTICK_ESCAPE}|{BACKTICK_ESCAPE}LIKES"
    assert edges(await walk(client, ada, types=[crafted])) == []
    assert edges(await walk(client, ada, types=["KNOWS"])) == [("Ada", "KNOWS", "Bob", "ASSERTION")]


async def test_a_relation_type_entry_that_equals_no_stored_type_follows_nothing(
    client: Client, builder: GraphBuilder
) -> None:
    ada = await _two_types(builder)
    for entry in ("NOT_STORED", "knows", "KNOWS ", "x`]-(e) RETURN 1 //", f"x{BACKTICK_ESCAPE}"):
        result = await walk(client, ada, types=[entry])
        assert result["edges"] == [] and result["truncatedBy"] == [], entry


@pytest.mark.parametrize("entry", ["a\u0000b", "a\nb", "\u0007", "\u009f", "", "x" * 101])
async def test_a_relation_type_entry_with_a_control_character_empty_or_too_long_is_malformed(
    client: Client, builder: GraphBuilder, entry: str
) -> None:
    ada = await _two_types(builder)
    error = await refusal(client, ada, types=[entry])
    assert error["extensions"]["code"] == "MALFORMED", error
    assert "`relationTypes`" in error["message"]


async def test_a_relation_type_entry_of_100_characters_is_accepted(
    client: Client, builder: GraphBuilder
) -> None:
    ada = await _two_types(builder)
    assert (await walk(client, ada, types=["x" * 100]))["edges"] == []


@pytest.mark.parametrize(
    "odd",
    [
        "works for",
        f"KNOWS{BACKTICK_ESCAPE}]-(e) RETURN 1 //",
        "a`b",
        "back\\slash",
        "/* x */",
        "é_type",
        "1_STARTS_WITH_A_DIGIT",
    ],
)
async def test_a_stored_odd_relation_type_is_walked_and_matched_as_a_parameter(
    client: Client, builder: GraphBuilder, odd: str
) -> None:
    ada = await _two_types(builder)
    await relate(client.graph, ada, odd, builder.entity_id("Cy"))
    every: list[tuple[str, str, str, str]] = edges(await walk(client, ada))
    assert sorted(every) == sorted(
        [
            ("Ada", "KNOWS", "Bob", "ASSERTION"),
            ("Ada", "LIKES", "Cy", "ASSERTION"),
            ("Ada", odd, "Cy", "PATH"),
        ]
    )
    assert edges(await walk(client, ada, types=[odd])) == [("Ada", odd, "Cy", "PATH")]
    assert sorted(edges(await walk(client, ada, types=[odd, "KNOWS"], depth=2))) == sorted(
        [("Ada", "KNOWS", "Bob", "ASSERTION"), ("Ada", odd, "Cy", "PATH")]
    )
    for statement in client.statements:
        assert odd not in statement or is_plain_name(odd)


def test_only_plain_names_are_written_into_cypher_text() -> None:
    assert cypher_name("WORKS_FOR") == "`WORKS_FOR`"
    assert cypher_name("_9") == "`_9`"
    for name in ("", "a b", "a`b", f"a{BACKTICK_ESCAPE}", "a\\b", "é", "a-b", "a\u0000"):
        with pytest.raises(CypherNameRefused):
            cypher_name(name)


@pytest.mark.parametrize(
    ("field", "name"),
    [
        ("label", f"Person{BACKTICK_ESCAPE}"),
        ("label", "Person Group"),
        ("label", "1Person"),
        ("label", "_Person"),
        ("type", f"KNOWS{BACKTICK_ESCAPE}]-() RETURN 1 //"),
        ("type", "works-for"),
        ("type", "é"),
    ],
)
async def test_a_bundle_label_or_relation_type_outside_the_rule_makes_its_line_invalid(
    graph: Graph, tmp_path: Path, cli: Cli, field: str, name: str
) -> None:
    kind = {"label": "Person", "type": "KNOWS"}
    kind[field] = name
    line = bundle_line(
        1,
        [(1, "Ada knows Bob.")],
        entities=[entity(1, "Ada", [1], kind["label"]), entity(2, "Bob", [1])],
        relations=[relation(1, 1, 2, [1], kind["type"])],
    )
    bundle = write_bundle(tmp_path / "odd.jsonl", [bundle_line(2, [(2, "Cy.")]), line])
    run = await cli.run("load", str(bundle))
    assert run.code == 2, run.err
    where = "entities[0].labels[0]" if field == "label" else "relations[0].type"
    kind_name = "label" if field == "label" else "relation type"
    assert f"{bundle}: line 2: {where}: " in run.err, run.err
    assert f"is not a {kind_name} name: use ASCII letters, digits and `_`" in run.err, run.err
    counts = await graph_counts(graph)
    assert counts[":Document"] == 1 and ":Entity" not in counts, counts  # nothing of line 2
