"""The schema as a contract (contract §11 `export-schema`): the committed
`schema.graphql` is what the code generates, every part of the schema a client can see is
described, and the SDL composes with another subgraph under Apollo's composition."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

from graphql import (
    GraphQLEnumType,
    GraphQLInputObjectType,
    GraphQLInterfaceType,
    GraphQLObjectType,
    GraphQLSchema,
    build_schema,
    find_breaking_changes,
    find_dangerous_changes,
)

from api.schema import create_schema, schema_sdl
from commands.main import main
from tests.support.node_tools import run_script

REPOSITORY = Path(__file__).resolve().parents[1]
COMMITTED = REPOSITORY / "schema.graphql"

# Federation-spec definitions Strawberry declares itself and offers no hook to describe
# (`_Any`, `_FieldSet` and `link__Import` are described through `scalar_overrides`,
# `_entities`, `_service`, `_Service` and `_Entity` by declaring them on `Query`). None of
# these appear in the SDL; only introspection shows them.
UNDESCRIBABLE = {
    "link__Purpose": "enum of @link, declared in strawberry.federation.types",
    "link__Purpose.SECURITY": "its value",
    "link__Purpose.EXECUTION": "its value",
    "@key": "directive, strawberry.federation.schema_directives.Key",
    "@key(fields:)": "its argument",
    "@key(resolvable:)": "its argument",
    "@link": "directive, strawberry.federation.schema_directives.Link",
    "@link(url:)": "its argument",
    "@link(as:)": "its argument",
    "@link(for:)": "its argument",
    "@link(import:)": "its argument",
}


def schema_changes(old_sdl: str, new_sdl: str) -> list[str]:
    old = build_schema(old_sdl, assume_valid_sdl=True)
    new = build_schema(new_sdl, assume_valid_sdl=True)
    return [
        f"BREAKING {change.type.name}: {change.description}"
        for change in find_breaking_changes(old, new)
    ] + [
        f"DANGEROUS {change.type.name}: {change.description}"
        for change in find_dangerous_changes(old, new)
    ]


def test_committed_schema_is_what_the_code_generates() -> None:
    generated = schema_sdl()
    committed = COMMITTED.read_text(encoding="utf-8")
    if generated != committed:
        changes = schema_changes(committed, generated)
        listed = "\n".join(changes) or "(no breaking or dangerous change: descriptions, order)"
        raise AssertionError(
            "schema.graphql is not what the code generates; run `evidencegraph export-schema` "
            f"and commit it. Changes from the committed schema:\n{listed}"
        )


def test_schema_changes_lists_breaking_and_dangerous_changes() -> None:
    """The drift report names what a change would break for clients."""
    committed = COMMITTED.read_text(encoding="utf-8")
    edited = committed.replace(
        '  """Where the source lives, when known."""\n  uri: String\n', ""
    ).replace("  limit: Int! = 10", "  limit: Int! = 20")
    changes = schema_changes(committed, edited)
    assert "BREAKING FIELD_REMOVED: Field Document.uri was removed." in changes
    assert any(c.startswith("DANGEROUS ARG_DEFAULT_VALUE_CHANGE") for c in changes), changes


def test_export_schema_writes_the_committed_schema(tmp_path: Path) -> None:
    output = tmp_path / "schema.graphql"
    assert main(["export-schema", "--output", str(output)]) == 0
    assert output.read_text(encoding="utf-8") == COMMITTED.read_text(encoding="utf-8")
    assert main(["export-schema", "--output", str(tmp_path / "missing" / "x.graphql")]) == 1


def undescribed(schema: GraphQLSchema) -> Iterator[str]:
    """Every type, field, argument, enum value, input field and directive without a
    description (introspection's own `__*` types excepted)."""
    for name, named in sorted(schema.type_map.items()):
        if name.startswith("__"):
            continue
        if not named.description:
            yield name
        if isinstance(named, GraphQLObjectType | GraphQLInterfaceType):
            for field_name, field in named.fields.items():
                if not field.description:
                    yield f"{name}.{field_name}"
                for arg_name, arg in field.args.items():
                    if not arg.description:
                        yield f"{name}.{field_name}({arg_name}:)"
        elif isinstance(named, GraphQLInputObjectType):
            for field_name, input_field in named.fields.items():
                if not input_field.description:
                    yield f"{name}.{field_name}"
        elif isinstance(named, GraphQLEnumType):
            for value_name, value in named.values.items():
                if not value.description:
                    yield f"{name}.{value_name}"
    for directive in schema.directives:
        if not directive.description:
            yield f"@{directive.name}"
        for arg_name, arg in directive.args.items():
            if not arg.description:
                yield f"@{directive.name}({arg_name}:)"


def test_everything_a_client_can_see_is_described() -> None:
    missing = list(undescribed(create_schema()._schema))
    unexpected = [name for name in missing if name not in UNDESCRIBABLE]
    assert not unexpected, "Add a description to: " + ", ".join(unexpected)
    # If Strawberry starts describing one of these, drop it from the list.
    assert sorted(missing) == sorted(UNDESCRIBABLE)


def test_federation_entry_points_are_described() -> None:
    schema = create_schema()._schema
    query = schema.query_type
    assert query is not None
    for described in (
        query.fields["_entities"],
        query.fields["_entities"].args["representations"],
        query.fields["_service"],
        schema.type_map["_Service"],
        schema.type_map["_Any"],
        schema.type_map["_Entity"],
    ):
        assert described.description


def test_the_committed_schema_composes_with_another_subgraph() -> None:
    """`@apollo/composition`, offline: our SDL and `tests/node/popularity.graphql`."""
    result = run_script("compose.mjs", str(COMMITTED))
    assert result["errors"] == [], result["errors"]
    supergraph = build_schema(result["supergraphSdl"], assume_valid_sdl=True)
    entity = supergraph.type_map["Entity"]
    assert isinstance(entity, GraphQLObjectType)
    assert {"id", "name", "evidence", "popularity"} <= set(entity.fields)
    assert "_entities" not in supergraph.type_map["Query"].fields  # type: ignore[attr-defined]
