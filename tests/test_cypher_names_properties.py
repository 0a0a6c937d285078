"""Names never become Cypher (contract §5, §10), as properties over hostile names on the real Neo4j.

Names are built from the pieces that broke quoting (`\\u0060`, which Neo4j decodes before it
reads a quoted name), backslashes, quotes, backticks, comments, newlines, control and non-ASCII
characters. They are fed to a walk's `relationTypes`, stored as relation types by another
pipeline, and sent as a bundle's labels and relation types and as GraphRAG entity types. For
each: nothing is INTERNAL, no answer holds anything out of scope
(tests/support/scope_oracle.py judges every walk), a malformed entry is MALFORMED, and every
later walk still works.

Example counts are modest (each example writes a world); the scope properties
(tests/test_scope_properties.py) cover scope itself at length.
"""

from __future__ import annotations

import uuid
from collections.abc import AsyncIterator
from dataclasses import replace
from pathlib import Path
from typing import Any, LiteralString

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from contract.arguments import MAX_NAME_LENGTH, has_control_character
from contract.graph_owned import GRAPH_OWNED_LABELS
from graph.cypher_names import is_load_name
from graph.driver import Graph
from ingest.graphrag import label_for_type
from tests.conftest import Client
from tests.support.load_helpers import Cli, write_bundle
from tests.support.scope_callers import GRANTS, Callers, scope_callers
from tests.support.scope_checks import check_walk
from tests.support.scope_oracle import ForbiddenScope, Oracle, effective
from tests.support.scope_world import (
    RELATION_TYPES,
    WIPE_WORLD,
    WORKSPACES,
    WRITE_WORLD,
    World,
    worlds,
    write_parameters,
)
from tests.test_walk import WALK

PIECES = (
    "\\", "\\u0060", "\\\\u0060", "\\u005c", "`", "``", "'", '"', "//", "/*", "*/", "\n", "\r",
    "\u0000", "\u0007", "\u0085", "é", "中", "😀", "KNOWS", "]", "[", "(", ")", "|", ":", "{",
    "$", " ", "-", "_", "RETURN 1", "MATCH (n) DETACH DELETE n", "a", "Z9",
)  # fmt: skip
hostile_names = st.lists(
    st.one_of(st.sampled_from(PIECES), st.characters(codec="utf-8")), max_size=6
).map("".join)
# Neo4j refuses an empty type name and one holding U+0000; anything else can be stored.
storable_types = hostile_names.filter(lambda name: bool(name) and "\x00" not in name)
load_names = st.one_of(hostile_names, st.from_regex(r"[A-Za-z][A-Za-z0-9_]{0,8}", fullmatch=True))

PROPERTIES = settings(
    max_examples=25,
    deadline=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
)

WRITE_ODD_RELATIONS: LiteralString = """
UNWIND $relations AS rel
MATCH (a:Entity {id: rel.source}), (b:Entity {id: rel.target})
CREATE (a)-[:$(rel.type) {id: rel.id, passageIds: rel.passageIds}]->(b)
"""


@pytest.fixture
async def callers(neo4j_uri: str, graph: Graph, tmp_path: Path) -> AsyncIterator[Callers]:
    async with scope_callers(neo4j_uri, graph, tmp_path) as both:
        yield both


def malformed(entry: str) -> bool:
    """contract §5: empty, over 100 characters, or holding a control character."""
    return not entry or len(entry) > MAX_NAME_LENGTH or has_control_character(entry)


async def write_world(graph: Graph, world: World) -> None:
    """The world, its relations of the two standard types by WRITE_WORLD, the rest (stored by
    "another pipeline") with their names as parameters."""
    parameters = write_parameters(world)
    odd = [r for r in parameters["relations"] if r["type"] not in RELATION_TYPES]
    await graph.write(WIPE_WORLD, {})
    await graph.write(WRITE_WORLD, parameters)
    await graph.write(WRITE_ODD_RELATIONS, {"relations": odd})


@PROPERTIES
@given(data=st.data(), world=worlds(), stored=st.lists(storable_types, min_size=1, max_size=3))
async def test_relation_type_names_never_become_cypher_and_never_show_what_is_out_of_scope(
    callers: Callers, graph: Graph, world: World, stored: list[str], data: st.DataObject
) -> None:
    types = [*RELATION_TYPES, *stored]
    world = replace(
        world,
        relations=[replace(r, type=data.draw(st.sampled_from(types))) for r in world.relations],
    )
    await write_world(graph, world)
    grant = data.draw(st.sampled_from([None, *GRANTS]))
    workspaces = data.draw(st.one_of(st.none(), st.lists(st.sampled_from(WORKSPACES), unique=True)))
    scope = {"workspaces": workspaces, "documentIds": None}
    try:
        oracle = Oracle(world, effective(grant, workspaces, None))
    except ForbiddenScope:
        scope["workspaces"] = None
        oracle = Oracle(world, effective(grant, None, None))
    client, headers = callers.for_grant(grant)
    start = data.draw(st.sampled_from([*world.entities, world.missing_id]))
    depth = data.draw(st.integers(1, 2))
    # Every stored type is followed, the odd ones matched as parameters.
    await check_walk(client, headers, world, scope, oracle, start, depth)
    requested = data.draw(
        st.lists(st.one_of(st.sampled_from(types), hostile_names), min_size=1, max_size=4)
    )
    if any(malformed(entry) for entry in requested):
        body = await client.execute(
            WALK, {"id": start, "types": requested, "scope": scope}, headers
        )
        assert body["data"] is None and body["errors"][0]["extensions"]["code"] == "MALFORMED"
        assert "`relationTypes`" in body["errors"][0]["message"]
    else:
        # Exactly the walk over the relations of the requested types, nothing else.
        typed = replace(world, relations=[r for r in world.relations if r.type in requested])
        typed_oracle = Oracle(typed, oracle.scope)
        await check_walk(client, headers, typed, scope, typed_oracle, start, depth, requested)
    await check_walk(client, headers, world, scope, oracle, start, depth)  # still works


@st.composite
def bundle_names(draw: st.DrawFn) -> tuple[str, str]:
    return draw(load_names), draw(load_names)


# One base document, loaded by the first example; each example adds a relation between its two
# entities when the relation's line is accepted.
BASE = {key: str(uuid.uuid5(uuid.NAMESPACE_URL, key)) for key in ("d1", "p1", "a", "b")}


@settings(PROPERTIES, max_examples=12)
@given(names=bundle_names())
async def test_a_bundle_label_or_type_outside_the_rule_is_refused_with_its_line_and_walks_go_on(
    client: Client, graph: Graph, cli: Cli, tmp_path_factory: Any, names: tuple[str, str]
) -> None:
    label, relation_type = names
    folder = Path(tmp_path_factory.mktemp("bundle"))
    ids = {key: str(uuid.uuid4()) for key in ("d2", "p2", "c", "r")} | BASE
    if not await graph.read("MATCH (e:Entity {id: $a}) RETURN e.id", {"a": BASE["a"]}):
        base = _line(BASE["d1"], BASE["p1"], [(BASE["a"], "Person"), (BASE["b"], "Person")], [])
        await cli.run("load", str(write_bundle(folder / "base.jsonl", [base])))
    odd_label = _line(ids["d2"], ids["p2"], [(ids["c"], label)], [])
    odd_type = _line(
        str(uuid.uuid4()), str(uuid.uuid4()), [], [(ids["r"], relation_type, ids["a"], ids["b"])]
    )
    bundle = write_bundle(folder / "odd.jsonl", [odd_label, odd_type])
    run = await cli.run("load", str(bundle))
    label_ok = is_load_name(label) and label not in GRAPH_OWNED_LABELS
    type_ok = is_load_name(relation_type) and relation_type not in (
        "HAS_PART", "MENTIONED_IN", "IN_COMMUNITY", "RESOLVED_AS",
    )  # fmt: skip
    assert run.code == (0 if label_ok and type_ok else 2), run.err
    assert (f"{bundle}: line 1: " in run.err) == (not label_ok), run.err
    assert (f"{bundle}: line 2: " in run.err) == (not type_ok), run.err
    stored = await graph.read(
        "MATCH (:Entity {id: $a})-[r {id: $r}]-(:Entity {id: $b}) RETURN type(r) AS type",
        {"a": ids["a"], "b": ids["b"], "r": ids["r"]},
    )
    assert [row["type"] for row in stored] == ([relation_type] if type_ok else [])
    body = await client.execute(WALK, {"id": ids["a"]})
    assert "errors" not in body, body
    walked = {edge["id"]: edge["type"] for edge in body["data"]["walk"]["edges"]}
    assert walked.get(ids["r"]) == (relation_type if type_ok else None)
    around = await graph.read(
        "MATCH (:Entity {id: $a})-[r]-(:Entity) RETURN r.id AS id, type(r) AS type", ids
    )
    assert walked == {row["id"]: row["type"] for row in around}  # earlier examples' too


def _line(
    document: str,
    passage: str,
    entities: list[tuple[str, str]],
    relations: list[tuple[str, str, str, str]],
) -> dict[str, Any]:
    return {
        "document": {"id": document, "workspace": "acme", "title": "t"},
        "passages": [{"id": passage, "position": 0, "text": "Ada and Bob."}],
        "entities": [
            {"id": i, "labels": [label], "name": "Ada", "mentions": [passage]}
            for i, label in entities
        ],
        "relations": [
            {"id": i, "type": kind, "source": s, "target": t, "passageIds": [passage]}
            for i, kind, s, t in relations
        ],
    }


@settings(max_examples=300)
@given(entity_type=st.one_of(st.none(), hostile_names, st.text()))
def test_every_graphrag_type_maps_to_a_label_a_load_accepts(entity_type: str | None) -> None:
    label = label_for_type(entity_type)
    assert is_load_name(label), (entity_type, label)
    assert label == label_for_type(entity_type)  # deterministic
