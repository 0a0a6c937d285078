"""What a source says about a relation, its `description` and `weight` (issue 30 §2,
contract/relation_claims.py): one rule makes them safe where they come in (a bundle line is
refused with its number, a GraphRAG or LangChain value dropped) and where they go out (the walk
serves only a bounded string and a finite float, whatever another pipeline stored), and a walk
serves them on `Edge`, null when the source gave none."""

from __future__ import annotations

import json
import math
from pathlib import Path
from typing import Any

from hypothesis import given
from hypothesis import strategies as st

from contract.relation_claims import (
    MAX_DESCRIPTION_CHARS,
    description_problem,
    served_description,
    served_weight,
    weight_problem,
)
from graph.driver import Graph
from ingest.bundle import LineError, parse_line, read_bundle
from ingest.document_version import DocumentVersion
from ingest.langchain_graph import read_graph_documents
from tests.conftest import serving
from tests.support.load_helpers import Cli, bundle_line, entity, relation, uid, write_bundle

# Anything a JSON document, a parquet cell or another pipeline's property may hold.
HOSTILE = st.recursive(
    st.none()
    | st.booleans()
    | st.integers(min_value=-(10**400), max_value=10**400)
    | st.floats(allow_nan=True, allow_infinity=True)
    | st.text(max_size=50)
    | st.builds(
        str.__mul__,
        st.sampled_from(["x", "é", "\u202e", "\x00"]),
        st.integers(MAX_DESCRIPTION_CHARS - 1, MAX_DESCRIPTION_CHARS + 1),
    ),
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=5), inner),
    max_leaves=4,
)


@given(HOSTILE)
def test_a_served_description_is_a_bounded_string_or_null(value: Any) -> None:
    served = served_description(value)
    assert served is None or (isinstance(served, str) and 0 < len(served) <= MAX_DESCRIPTION_CHARS)
    if isinstance(value, str) and 0 < len(value) <= MAX_DESCRIPTION_CHARS:
        assert served == value


@given(HOSTILE)
def test_a_served_weight_is_a_finite_float_or_null(value: Any) -> None:
    served = served_weight(value)
    assert served is None or (type(served) is float and math.isfinite(served))
    if type(value) in (int, float) and served is not None:
        assert served == float(value)


@given(HOSTILE)
def test_a_loaded_description_is_a_string_of_bounded_length_and_nothing_else(value: Any) -> None:
    accepted = description_problem(value) is None
    assert accepted == (isinstance(value, str) and len(value) <= MAX_DESCRIPTION_CHARS)


@given(HOSTILE)
def test_a_loaded_weight_is_a_finite_number_and_nothing_else(value: Any) -> None:
    accepted = weight_problem(value) is None
    finite = type(value) is float and math.isfinite(value)
    assert accepted == (finite or (type(value) is int and -(2**63) <= value < 2**63))


def line_with(**claims: Any) -> str:
    """A bundle line whose one relation carries `claims`, as `json.dumps` writes it."""
    line = bundle_line(
        1,
        [(1, "Ada met Bo.")],
        entities=[entity(1, "Ada", [1]), entity(2, "Bo", [1])],
        relations=[{**relation(1, 1, 2, [1]), **claims}],
    )
    return json.dumps(line, allow_nan=False)


@given(HOSTILE)
def test_a_bundle_relation_weight_that_is_not_a_finite_number_refuses_the_line(value: Any) -> None:
    try:
        text = line_with(weight=value)
    except ValueError:  # a value JSON cannot hold is a line no bundle has
        return
    parsed = parse_line(text)
    if value is None or (type(value) in (int, float) and weight_problem(value) is None):
        assert isinstance(parsed, DocumentVersion)
        weight = parsed.relations[0].properties.get("weight")
        assert weight == value
    else:
        assert isinstance(parsed, LineError) and "relations[0].weight" in parsed.reason


@given(HOSTILE)
def test_a_bundle_relation_description_that_is_not_a_bounded_string_refuses_the_line(
    value: Any,
) -> None:
    try:
        text = line_with(description=value)
    except ValueError:
        return
    parsed = parse_line(text)
    if value is None or description_problem(value) is None:
        assert isinstance(parsed, DocumentVersion)
        assert parsed.relations[0].properties.get("description") == value
    else:
        assert isinstance(parsed, LineError) and "relations[0].description" in parsed.reason


def test_hostile_claims_are_refused_with_their_line_number(tmp_path: Path) -> None:
    good = line_with(description="Ada knows Bo.", weight=2)
    lines = [
        good,
        good.replace('"weight": 2', '"weight": NaN'),
        good.replace('"weight": 2', '"weight": 1e999'),
        good.replace('"weight": 2', '"weight": true'),
        line_with(description="x" * (MAX_DESCRIPTION_CHARS + 1)),
        line_with(description=["a list"]),
        line_with(description="twice", properties={"description": "twice"}),
        line_with(properties={"weight": "heavy"}),
        line_with(properties={"description": "y" * (MAX_DESCRIPTION_CHARS + 1)}),
    ]
    path = tmp_path / "bundle.jsonl"
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    read = dict(read_bundle(path))
    assert isinstance(read[1], DocumentVersion)
    assert read[1].relations[0].properties == {"description": "Ada knows Bo.", "weight": 2}
    reasons = {number: getattr(read[number], "reason", "") for number in range(2, 10)}
    assert "NaN is not a JSON value" in reasons[2]
    assert "relations[0].weight: must be a finite number, got the number inf" in reasons[3]
    assert "relations[0].weight: must be a finite number, got a boolean" in reasons[4]
    assert f"relations[0].description: is longer than {MAX_DESCRIPTION_CHARS:,}" in reasons[5]
    assert "relations[0].description: must be a string, got an array" in reasons[6]
    assert "relations[0].description: is given again in relations[0].properties" in reasons[7]
    assert "relations[0].properties.weight: must be a finite number" in reasons[8]
    assert "relations[0].properties.description: is longer than" in reasons[9]


WALK = """
query ($id: ID!) {
  walk(entityId: $id) { edges { type description weight } }
}
"""


async def test_a_walk_serves_each_edges_description_and_weight_and_null_when_none(
    graph: Graph, neo4j_uri: str, cli: Cli, tmp_path: Path
) -> None:
    line = bundle_line(
        1,
        [(1, "Ada met Bo and Cy.")],
        entities=[entity(1, "Ada", [1]), entity(2, "Bo", [1]), entity(3, "Cy", [1])],
        relations=[
            {**relation(1, 1, 2, [1], "KNOWS"), "description": "Ada knows Bo.", "weight": 2},
            relation(2, 1, 3, [1], "MET"),
        ],
    )
    run = await cli.run("load", str(write_bundle(tmp_path / "b.jsonl", [line])))
    assert run.code == 0, run.err
    # Another pipeline's values, which no loader would write: served as null.
    await graph.write("MATCH ()-[r:MET]->() SET r.description = 42, r.weight = 'heavy'", {})
    # What is checked is the answer, not its time: a busy 2-core machine once took more than
    # the default 30 s for this walk (as tests/test_mcp_answers.py allows too).
    async with serving(neo4j_uri, graph, REQUEST_TIMEOUT_SECONDS="120") as client:
        body = await client.execute(WALK, {"id": uid("e", 1)})
    assert "errors" not in body, body
    edges = sorted(body["data"]["walk"]["edges"], key=lambda edge: edge["type"])
    assert edges == [
        {"type": "KNOWS", "description": "Ada knows Bo.", "weight": 2.0},
        {"type": "MET", "description": None, "weight": None},
    ]


def test_langchain_relationship_claims_are_kept_under_the_rule_and_dropped_otherwise(
    tmp_path: Path,
) -> None:
    def record(number: int, properties: dict[str, Any]) -> dict[str, Any]:
        ada = {"id": "Ada", "type": "Person", "properties": {}}
        bo = {"id": f"Bo {number}", "type": "Person", "properties": {}}
        return {
            "nodes": [ada, bo],
            "relationships": [
                {"source": ada, "target": bo, "type": "KNOWS", "properties": properties}
            ],
            "source": {"id": f"chunk {number}", "page_content": "Ada met Bo.", "metadata": {}},
        }

    path = tmp_path / "graph_documents.json"
    path.write_text(
        json.dumps(
            [
                record(1, {"description": "Ada knows Bo.", "weight": 0.5}),
                record(2, {"description": 42, "weight": True}),
                record(3, {"description": "z" * (MAX_DESCRIPTION_CHARS + 1), "weight": 2**70}),
            ]
        ),
        encoding="utf-8",
    )
    export = read_graph_documents(path, "acme")
    properties = [
        line.relations[0].properties
        for _, line in export.lines
        if isinstance(line, DocumentVersion)
    ]
    assert properties == [{"description": "Ada knows Bo.", "weight": 0.5}, {}, {}]
    assert any(
        warning.startswith("4 relationship property(ies) dropped") for warning in export.warnings
    )
