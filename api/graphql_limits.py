"""GraphQL hardening: Strawberry's stock extensions, configured from settings.

    GRAPHQL_MAX_TOKENS    MaxTokensLimiter: the parser stops at this many tokens, so a huge
                          document costs nothing to refuse
    GRAPHQL_MAX_DEPTH     QueryDepthLimiter: nesting of fields with selections. It skips
                          introspection fields (`__schema`, `__type`); graphql-core's
                          MaxIntrospectionDepthRule (among its specified rules, so always on)
                          bounds those
    GRAPHQL_MAX_ALIASES   MaxAliasesLimiter: each alias of a root field is another search or
                          walk, so aliases multiply a request's cost
    GRAPHQL_INTROSPECTION DisableIntrospection unless true (`_service` is a plain field, so
                          the gateway still reads the SDL)
    GRAPHQL_MAX_DIRECTIVES_PER_FIELD, GRAPHQL_MAX_DIRECTIVES
                          api/graphql_document.py: checked before validation, with the one
                          operation a request runs; it also caches small documents only

Extensions are passed as classes or factories, never instances (an instance would be shared
by concurrent requests). The depth and alias rules are built once here and handed to a fresh
`AddValidationRules` per request: the rule classes stay the same objects, which is what lets
the validation cache (api/graphql_document.py) recognise a document it has validated before.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TypeAlias

from strawberry.extensions import (
    AddValidationRules,
    DisableIntrospection,
    MaxAliasesLimiter,
    MaxTokensLimiter,
    QueryDepthLimiter,
    SchemaExtension,
)

from api.graphql_document import document_checks
from api.settings import Settings

ExtensionFactory: TypeAlias = type[SchemaExtension] | Callable[[], SchemaExtension]


def graphql_limits(settings: Settings) -> list[ExtensionFactory]:
    max_tokens = settings.graphql_max_tokens
    rules = [
        *QueryDepthLimiter(max_depth=settings.graphql_max_depth).validation_rules,
        *MaxAliasesLimiter(max_alias_count=settings.graphql_max_aliases).validation_rules,
    ]
    extensions: list[ExtensionFactory] = [
        lambda: MaxTokensLimiter(max_token_count=max_tokens),
        lambda: AddValidationRules(rules),
    ]
    if not settings.graphql_introspection:
        extensions.append(DisableIntrospection)
    extensions.append(
        document_checks(settings.graphql_max_directives_per_field, settings.graphql_max_directives)
    )
    return extensions
