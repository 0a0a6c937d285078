"""The Federation 2 entry points a gateway uses, `_service` and `_entities`, declared here so
they carry descriptions like every other field (Strawberry generates undescribed ones unless
the query type defines them; it then keeps these).

`_entities` hands each representation to its type's `resolve_reference`, as Strawberry does;
those resolve through the per-request loaders, so a gateway asking for 100 references of a
type costs one read of that type, not 100. They apply the caller's whole grant as scope
(contract §8): a hidden entity is null, exactly like a missing one.
"""

from __future__ import annotations

from typing import Annotated, Any

import strawberry
from strawberry.federation.schema import FederationAny
from strawberry.federation.types import FieldSet, LinkImport
from strawberry.printer import print_schema
from strawberry.types.scalar import ScalarDefinition, scalar

from contract.errors import Malformed
from resolvers.context import Info
from resolvers.document import Document
from resolvers.entity import Entity
from resolvers.passage import Passage

# Strawberry's federation scalars, the same but described (passed as `scalar_overrides`).
# `link__Purpose` and the `@key`/`@link` directive definitions cannot be replaced this way;
# they stay undescribed (see tests/test_schema_contract.py).
FEDERATION_SCALARS: dict[object, ScalarDefinition] = {
    FederationAny: scalar(
        name="_Any",
        description=(
            "Federation: an entity representation, `{__typename, id}`, as a gateway sends it "
            "to `_entities`."
        ),
        serialize=lambda value: value,
        parse_value=lambda value: value,
    ),
    FieldSet: scalar(
        name="_FieldSet",
        description='Federation: the fields of a `@key`, e.g. `"id"`.',
        serialize=lambda value: value,
        parse_value=str,
        print_definition=False,
    ),
    LinkImport: scalar(
        name="link__Import",
        description="Federation: a name `@link` imports from a specification.",
        serialize=lambda value: value,
        parse_value=lambda value: value,
        print_definition=False,
    ),
}

# The types a gateway may resolve by key, and the most representations one request may carry.
ENTITY_TYPES = ("Document", "Entity", "Passage")
MAX_REPRESENTATIONS = 1000


def check_representations(representations: list[Any]) -> None:
    """Each representation is `{__typename, id}` of an entity type, with a string id."""
    if len(representations) > MAX_REPRESENTATIONS:
        raise Malformed("representations", f"at most {MAX_REPRESENTATIONS} per request")
    for index, representation in enumerate(representations):
        if not (
            isinstance(representation, dict)
            and representation.keys() == {"__typename", "id"}
            and representation["__typename"] in ENTITY_TYPES
            and isinstance(representation["id"], str)
        ):
            raise Malformed(
                f"representations[{index}]",
                "each must be {__typename, id} with __typename one of "
                + ", ".join(ENTITY_TYPES)
                + " and id a string",
            )


EntityUnion = Annotated[
    Document | Entity | Passage,
    strawberry.union(
        "_Entity",
        description='Federation: every type a gateway may resolve by key (`@key(fields: "id")`).',
    ),
]


@strawberry.type(
    name="_Service",
    description="Federation: what a gateway reads to compose this service into a supergraph.",
)
class Service:
    @strawberry.field(description="This service's schema, in SDL with its federation directives.")
    def sdl(self, info: Info) -> str:
        return print_schema(info.schema)


@strawberry.type
class FederationQuery:
    """The federation fields of `Query`."""

    @strawberry.field(
        name="_entities",
        description=(
            "Federation: the entities of these representations, in the same order, each null "
            "when it is missing or outside the caller's scope. Used by a gateway, not by clients."
        ),
    )
    def entities(
        self,
        info: Info,
        representations: Annotated[
            list[FederationAny],
            strawberry.argument(
                description="`{__typename, id}` of each wanted entity (`Entity`, `Passage`, "
                "`Document`)."
            ),
        ],
    ) -> list[EntityUnion | None]:
        info.context.require_gateway()
        check_representations(representations)
        # Strawberry's own resolver returns one awaitable per representation; graphql-core
        # awaits them together, so the loaders see them in one batch.
        resolved: list[Any] = info.schema.entities_resolver(info, representations)  # type: ignore[attr-defined]
        return resolved

    @strawberry.field(
        name="_service", description="Federation: this service's capabilities and schema."
    )
    def service(self, info: Info) -> Service:
        info.context.require_gateway()
        return Service()
