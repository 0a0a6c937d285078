"""`/graphql`: Strawberry's ASGI view with the request context built per request."""

from __future__ import annotations

from typing import Any

from starlette.requests import Request
from starlette.responses import Response
from strawberry.asgi import GraphQL

from api.services import Services
from contract.errors import EvidenceGraphError
from resolvers.context import RequestContext


class GraphQLView(GraphQL[RequestContext, None]):
    async def get_context(self, request: Request, response: Response | Any) -> RequestContext:  # type: ignore[override]
        services: Services = request.app.state.services
        try:
            grant = services.authenticator.authenticate(request.headers.get("authorization"))
            error: EvidenceGraphError | None = None
        except EvidenceGraphError as refused:
            grant, error = None, refused
        return RequestContext(
            graph=services.graph, grant=grant, auth_error=error, services=services
        )
