"""The request context every resolver receives, typed once, with the `Info` alias."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING, TypeAlias

import strawberry

from answers.context import AnswerContext
from contract.errors import EvidenceGraphError, Forbidden, Unauthenticated
from contract.scope import Grant, Scope, effective_scope
from graph.driver import Graph
from loaders import Loaders, create_loaders

if TYPE_CHECKING:
    from resolvers.scope_input import ScopeInput


@dataclass
class RequestContext:
    """What one GraphQL request may use: what the answers read (graph, query embedder, vector
    store, retrieval settings; the api layer builds it from what its lifespan started) and the
    caller's grant."""

    answers: AnswerContext
    grant: Grant | None
    auth_error: EvidenceGraphError | None = None
    # False when FEDERATION_GATEWAY_TOKEN is set and the request did not carry it.
    through_gateway: bool = True
    _loaders: dict[Scope, Loaders] = field(default_factory=dict)
    _grant_scope: Scope | None = None  # scope(None), worked out once per request

    @property
    def graph(self) -> Graph:
        return self.answers.graph

    def caller_grant(self) -> Grant:
        """The caller's grant; every operation needs one (contract §8)."""
        if self.grant is None:
            raise self.auth_error or Unauthenticated("Credentials are required.")
        return self.grant

    def require_gateway(self) -> None:
        """The federation entry points answer the gateway only, when it has a token."""
        if not self.through_gateway:
            raise Forbidden(
                "`_service` and `_entities` answer only the federation gateway, which sends its "
                "`X-Gateway-Token`. Query the gateway, or use `entity` and `passage`."
            )

    def scope(self, requested: ScopeInput | None) -> Scope:
        """The effective scope of a root field (contract §1)."""
        grant = self.caller_grant()
        if requested is None:
            if self._grant_scope is None:
                self._grant_scope = effective_scope(grant)
            return self._grant_scope
        return effective_scope(grant, requested.workspaces, requested.document_ids)

    def grant_loaders(self) -> Loaders:
        """The loaders of the caller's whole grant: federation references carry no scope, and
        a gateway may send a thousand of them in one request."""
        return self.loaders(self.scope(None))

    def loaders(self, scope: Scope) -> Loaders:
        """This request's loaders for `scope`; created on first use, never shared."""
        bundle = self._loaders.get(scope)
        if bundle is None:
            bundle = self._loaders[scope] = create_loaders(self.graph, scope)
        return bundle


Info: TypeAlias = strawberry.Info[RequestContext, None]
