"""The schema object: the `Query` root as a Federation 2 subgraph, with cross-cutting policy
added through stock extensions configured by small predicates."""

from __future__ import annotations

from collections.abc import Callable, Sequence

import strawberry
from graphql.error import GraphQLError
from strawberry.extensions import SchemaExtension
from strawberry.types import ExecutionContext

from api.errors import ErrorCodes, log_error
from resolvers.federation import FEDERATION_SCALARS
from resolvers.query import Query


class EvidenceGraphSchema(strawberry.federation.Schema):
    def process_errors(
        self, errors: list[GraphQLError], execution_context: ExecutionContext | None = None
    ) -> None:
        # Strawberry logs every error at ERROR; a client's mistake is not the service's.
        for error in errors:
            log_error(error)


def create_schema(
    extensions: Sequence[type[SchemaExtension] | Callable[[], SchemaExtension]] = (),
    *,
    hide_suggestions: bool = False,
) -> EvidenceGraphSchema:
    """The schema; `extensions` are added after error coding (api/app.py picks them).

    Batching stays off (Strawberry's default, `batching_config=None`): a list of operations in
    one body is refused with 400, so one request is one operation under every limit.
    """
    return EvidenceGraphSchema(
        query=Query,
        extensions=[lambda: ErrorCodes(hide_suggestions=hide_suggestions), *extensions],
        scalar_overrides=dict(FEDERATION_SCALARS),
    )


def schema_sdl(schema: strawberry.federation.Schema | None = None) -> str:
    """The schema in SDL, as `evidencegraph export-schema` writes `schema.graphql`."""
    return (schema or create_schema()).as_str() + "\n"
