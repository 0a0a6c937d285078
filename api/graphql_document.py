"""One GraphQL document from text to validated, with every limit applied before work grows
with the document (docs/security.md, "Limits"). A Strawberry extension, passed as a factory.

- Parse: by Strawberry, with `GRAPHQL_MAX_TOKENS` (MaxTokensLimiter's `parse_options`), so a
  huge document stops at that many tokens. Nothing else parses the text: a request without
  `operationName` is checked on this parsed document, not by a parse of its own (one used to
  parse a 70,000-alias document in full, with no limit, to count its operations).
- Before validation: a document with several operations must name one (the GraphQL
  specification's GetOperation; Strawberry would run the first), and no field, fragment or
  operation carries more than `GRAPHQL_MAX_DIRECTIVES_PER_FIELD` directives, nor the document
  more than `GRAPHQL_MAX_DIRECTIVES`. Each is one request error; validation, which would
  report every repeated directive separately, does not run.
- Caches: parsed documents, their directive counts and their validation results are kept in
  bounded LRUs shared by requests (clients repeat a handful of operations), but only for
  documents of at most `CACHEABLE_DOCUMENT_CHARS` characters: a cache entry holds the text, its
  syntax tree and its errors, and a large document (a long string literal keeps its token count
  low) must not stay in memory after its request. Each is keyed by the document's text, whose
  hash Python keeps: hashing the syntax tree walks all of it (0.1 ms for the search of
  bench/notebook.md), and counting directives visits all of it (0.2–0.4 ms), every request.
"""

from __future__ import annotations

import contextlib
from collections.abc import Callable, Iterator
from functools import lru_cache
from typing import Any

from graphql import DocumentNode, GraphQLError, GraphQLSchema, Node, OperationDefinitionNode, parse
from graphql.error import GraphQLSyntaxError
from graphql.language import Visitor, visit
from strawberry.extensions import SchemaExtension
from strawberry.schema.schema import validate_document

from contract.errors import Malformed

CACHE_SIZE = 256  # distinct documents remembered
CACHEABLE_DOCUMENT_CHARS = 8192  # larger documents are parsed and validated every time

cached_parse = lru_cache(maxsize=CACHE_SIZE)(parse)

ParseOptions = tuple[tuple[str, Any], ...]


def _parsed(query: str, parse_options: ParseOptions) -> DocumentNode:
    return cached_parse(query, **dict(parse_options))


@lru_cache(maxsize=CACHE_SIZE)
def cached_validate(
    schema: GraphQLSchema, query: str, parse_options: ParseOptions, rules: tuple[Any, ...]
) -> list[GraphQLError]:
    """The validation errors of a cacheable document, by its text."""
    return validate_document(schema, _parsed(query, parse_options), rules)


@lru_cache(maxsize=CACHE_SIZE)
def cached_directive_excess(
    query: str, parse_options: ParseOptions, per_field: int, per_document: int
) -> str | None:
    """`directive_excess` of a cacheable document, by its text."""
    return directive_excess(_parsed(query, parse_options), per_field, per_document)


def several_operations_unnamed(document: DocumentNode, operation_name: str | None) -> bool:
    """GetOperation: with several operations in the document, the request must name one."""
    if operation_name is not None:
        return False
    operations = (d for d in document.definitions if isinstance(d, OperationDefinitionNode))
    return sum(1 for _ in operations) > 1


class _DirectiveCount(Visitor):
    def __init__(self) -> None:
        super().__init__()
        self.total = 0
        self.most_on_one = 0

    def enter(self, node: Node, *_: Any) -> None:
        directives = getattr(node, "directives", None)
        if directives:
            self.total += len(directives)
            self.most_on_one = max(self.most_on_one, len(directives))


def directive_excess(document: DocumentNode, per_field: int, per_document: int) -> str | None:
    """What is wrong with the document's directives, or None."""
    count = _DirectiveCount()
    visit(document, count)
    if count.most_on_one > per_field:
        return (
            f"At most {per_field} directives on one field, fragment or operation "
            f"(GRAPHQL_MAX_DIRECTIVES_PER_FIELD); one carries {count.most_on_one}."
        )
    if count.total > per_document:
        return (
            f"At most {per_document} directives in a document (GRAPHQL_MAX_DIRECTIVES); "
            f"this one has {count.total}."
        )
    return None


def document_checks(per_field: int, per_document: int) -> Callable[[], SchemaExtension]:
    """A factory of the extension, with the directive limits."""

    def create() -> SchemaExtension:
        return DocumentChecks(per_field, per_document)

    return create


class DocumentChecks(SchemaExtension):
    def __init__(self, per_field: int, per_document: int) -> None:
        self.per_field = per_field
        self.per_document = per_document
        self.cacheable = False
        self.parse_options: ParseOptions = ()

    def on_parse(self) -> Iterator[None]:
        context = self.execution_context
        self.cacheable = bool(context.query) and len(context.query or "") <= (
            CACHEABLE_DOCUMENT_CHARS
        )
        self.parse_options = tuple(sorted(context.parse_options.items()))
        if self.cacheable and context.graphql_document is None:
            # A syntax error: Strawberry parses it again (it is small) and reports it.
            with contextlib.suppress(GraphQLSyntaxError):
                context.graphql_document = _parsed(context.query or "", self.parse_options)
        yield

    def on_validate(self) -> Iterator[None]:
        context = self.execution_context
        document = context.graphql_document
        assert document is not None  # validation runs only on a parsed document
        refusal = None
        # The name the request gave: Strawberry's `operation_name` falls back to the first
        # operation's, which is exactly what GetOperation must not do.
        requested: str | None = getattr(context, "_provided_operation_name", None)
        query = context.query or ""
        if several_operations_unnamed(document, requested):
            refusal = "Must provide operation name if query contains multiple operations."
        elif self.cacheable:
            refusal = cached_directive_excess(
                query, self.parse_options, self.per_field, self.per_document
            )
        else:
            refusal = directive_excess(document, self.per_field, self.per_document)
        if refusal is not None:
            context.pre_execution_errors = [
                GraphQLError(refusal, extensions={"code": Malformed.code})
            ]
        elif self.cacheable and context.validation_rules:
            context.pre_execution_errors = cached_validate(
                context.schema._schema,
                query,
                self.parse_options,
                tuple(context.validation_rules),
            )
        yield
