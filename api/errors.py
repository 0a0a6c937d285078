"""Errors as clients see them (contract §7): every error carries `extensions.code`; no internals.

- `EvidenceGraphError` (contract/errors.py): its message and code go to the client.
- Parse and validation errors, and variables that do not coerce: `MALFORMED`, with
  graphql-core's message (it names the offending field or argument).
- Anything else: `INTERNAL` with a fixed message; the details are logged here, at ERROR, with
  the traceback. Client errors are logged at INFO, since they are not the service's fault.

graphql-core's messages may end in "Did you mean …?", naming fields, arguments, types and
enum values the client did not know; that reveals the schema as introspection would, so it is
cut off unless GRAPHQL_FIELD_SUGGESTIONS is on.
"""

from __future__ import annotations

import logging
import re

from graphql.error import GraphQLError
from strawberry.extensions import MaskErrors

from contract.errors import EvidenceGraphError, Internal, Malformed

log = logging.getLogger("evidencegraph.errors")

CLIENT_ERROR_CODE_FOR_GRAPHQL = Malformed.code
# How graphql-core's messages start when a field's argument does not coerce at execution.
ARGUMENT_COERCION = "Argument '"
# graphql-core's `did_you_mean` always starts its hint this way.
SUGGESTION = re.compile(r"\s*Did you mean .*$", re.DOTALL)


def _with_code(error: GraphQLError, message: str, extensions: dict[str, object]) -> GraphQLError:
    return GraphQLError(
        message=message,
        nodes=error.nodes,
        source=error.source,
        positions=error.positions,
        path=error.path,
        original_error=None,
        extensions=extensions,
    )


def is_graphql_client_error(error: GraphQLError) -> bool:
    """graphql-core's own parse, validation and variable coercion errors: safe to show. They
    belong to no field; a coercion error wraps graphql-core's own error for the value. One
    coercion happens at a field, during execution: a variable that is null (or left out) where
    a non-null argument with a default expects a value (`query ($n: Int) { walk(maxNodes: $n)`,
    which validation allows) fails there: graphql-core's own error, located at the field."""
    original = error.original_error
    own = original is None or isinstance(original, GraphQLError)
    if error.path:
        return own and error.message.startswith(ARGUMENT_COERCION)
    return own


def without_suggestions(message: str) -> str:
    """
    >>> without_suggestions("Cannot query field 'nme' on type 'Entity'. Did you mean 'name'?")
    "Cannot query field 'nme' on type 'Entity'."
    """
    return SUGGESTION.sub("", message)


def coded_error(error: GraphQLError, hide_suggestions: bool = False) -> GraphQLError:
    """The client-facing form of one error."""
    original = error.original_error
    if isinstance(original, EvidenceGraphError):
        return _with_code(error, original.message, {"code": original.code, **original.extensions})
    if is_graphql_client_error(error):
        message = without_suggestions(error.message) if hide_suggestions else error.message
        return _with_code(error, message, {"code": CLIENT_ERROR_CODE_FOR_GRAPHQL})
    internal = Internal()
    return _with_code(error, internal.message, {"code": internal.code})


def ensure_coded(errors: list[GraphQLError], hide_suggestions: bool) -> list[GraphQLError]:
    """The last check before a response is written: an error that reached here without a
    code (Strawberry returns an error raised inside an extension's hook, such as a cached
    parse, without running `ErrorCodes` on it) is coded now, so nothing leaves uncoded."""
    return [
        error if (error.extensions or {}).get("code") else coded_error(error, hide_suggestions)
        for error in errors
    ]


def log_error(error: GraphQLError) -> None:
    """Client errors below ERROR; unexpected ones at ERROR with their traceback."""
    original = error.original_error
    if isinstance(original, EvidenceGraphError) or is_graphql_client_error(error):
        code = (
            original.code
            if isinstance(original, EvidenceGraphError)
            else CLIENT_ERROR_CODE_FOR_GRAPHQL
        )
        log.info("client error %s at %s: %s", code, error.path, error.message)
    else:
        log.error("unexpected error at %s", error.path, exc_info=original or error)


class ErrorCodes(MaskErrors):
    """Strawberry's `MaskErrors`, turned into the contract's coded errors."""

    def __init__(self, *, hide_suggestions: bool = False) -> None:
        super().__init__()
        self.hide_suggestions = hide_suggestions

    def _process_errors(self, errors: list[GraphQLError]) -> list[GraphQLError]:
        return [coded_error(error, self.hide_suggestions) for error in errors]

    def _process_result(self, result: object) -> None:
        # MaskErrors asks `isinstance(result, <a runtime-checkable Protocol>)`, which inspects
        # the protocol's attributes on every request (20-30 µs); `errors` is all it needs.
        errors = getattr(result, "errors", None)
        if errors:
            result.errors = self._process_errors(errors)  # type: ignore[attr-defined]
