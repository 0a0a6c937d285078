"""`/graphql`: Strawberry's ASGI view, held to GraphQL over HTTP (contract §11, rules in
`api/graphql_http.py`), with the request context built per request and GraphiQL for browsers.

Where it departs from Strawberry's defaults, through Strawberry's own hooks:
- the response media type follows `Accept` (`application/graphql-response+json` or
  `application/json`; neither → 406), and so does the status;
- a request error (the operation never ran) has no `data` entry;
- a caller without valid credentials is refused before parsing its document (contract §8: every
  operation needs credentials): `UNAUTHENTICATED`, 401 under the new media type;
- `GET` never runs a mutation: 405 with `Allow: POST`; a body that is not JSON is 415; a
  non-string `operationName` is 400; JSON that cannot be read (malformed, or nested too deeply:
  api/json_body.py), in the body or in GET's `variables` and `extensions`, is 400 with a
  `MALFORMED` error;
- GraphiQL only for a browser that names `text/html`, only when enabled; otherwise 406;
- no WebSocket and no subscription transport: the schema has no subscriptions, so a WebSocket
  handshake is closed before it is accepted;
- `X-Gateway-Token` decides whether the federation fields answer (api/gateway_token.py);
- every error carries the request's id in `extensions.requestId` (api/request_log.py);
- the front door (api/front_door/door.py): a persisted operation's hash becomes its document, the
  operation waits for an admission slot (OVERLOADED when it cannot have one), and every answer
  carries its cost in `extensions.cost`; a refusal that says when to come back
  (`extensions.retryAfter`) sends it as `Retry-After` too; a persisted query sent with GET is
  answered `Cache-Control: private` and `Vary: Authorization` (the answer depends on the
  caller, so no shared cache may keep it);
- the body is encoded by orjson (UTF-8, no escapes for non-ASCII text).
"""

from __future__ import annotations

from typing import Any

import orjson
from cross_web import AsyncHTTPRequestAdapter, HTTPException, StarletteRequestAdapter
from graphql.error import GraphQLError
from starlette.datastructures import Headers
from starlette.requests import Request
from starlette.responses import JSONResponse, PlainTextResponse, Response
from starlette.types import Receive, Scope, Send
from starlette.websockets import WebSocket, WebSocketClose
from strawberry.asgi import GraphQL
from strawberry.http import GraphQLHTTPResponse, GraphQLRequestData, process_result
from strawberry.http.base import BaseRequestProtocol
from strawberry.http.parse_content_type import parse_content_type
from strawberry.schema.base import BaseSchema
from strawberry.schema.exceptions import InvalidOperationTypeError
from strawberry.types import ExecutionResult, SubscriptionExecutionResult
from strawberry.types.execution import PreExecutionError

from api import graphql_http, request_record
from api.caller import identify
from api.errors import coded_error, ensure_coded, log_error
from api.front_door.door import FrontDoor
from api.graphiql import graphiql_page
from api.json_body import UnreadableJson, read_json
from api.request_log import note_errors
from api.services import Services
from contract.errors import BackendUnavailable, EvidenceGraphError, Overloaded
from contract.scope import Grant
from resolvers.context import RequestContext


def refusal_code(result: object) -> str | None:
    """The code of an answer refusing the whole operation (over the cost limit or its rate,
    say: the front door paces those, api/front_door/door.py `admitted`), else None. The errors are
    coded by then (api/errors.py)."""
    if not isinstance(result, ExecutionResult) or result.data is not None or not result.errors:
        return None
    code = (result.errors[0].extensions or {}).get("code")
    return code if isinstance(code, str) else None


class Refused(HTTPException):
    """A request refused before GraphQL sees it; `headers` go out with the plain-text answer."""

    def __init__(self, status_code: int, reason: str, headers: dict[str, str] | None = None):
        super().__init__(status_code, reason)
        self.headers = headers or {}


class UnreadableRequest(HTTPException):
    """A body that is not one JSON object, or a body or query parameter whose JSON cannot be
    read (api/json_body.py): 400 with a
    coded GraphQL error, as contract §7 asks, in the media type the client accepts."""

    def __init__(self, unreadable: UnreadableJson) -> None:
        super().__init__(400, unreadable.message)
        self.code = unreadable.code

    def response(self, accept: str | None) -> Response:
        media_type = graphql_http.response_media_type(accept) or graphql_http.JSON
        errors: list[dict[str, Any]] = [{"message": self.reason, "extensions": {"code": self.code}}]
        note_errors(errors)
        return JSONResponse(
            {"errors": errors}, status_code=400, media_type=f"{media_type}; charset=utf-8"
        )


class SubResponse(Response):
    """Strawberry's per-request sub-response, carrying the media type negotiated for it."""

    def __init__(self, media_type: str) -> None:
        super().__init__()
        self.status_code = None  # type: ignore[assignment]  # Strawberry: "not set"
        del self.headers["content-length"]
        self.negotiated = media_type


class GraphQLView(GraphQL[RequestContext, None]):
    def __init__(
        self,
        schema: BaseSchema,
        *,
        graphiql: bool,
        hide_suggestions: bool,
        front_door: FrontDoor,
    ) -> None:
        # Strawberry asks `render_graphql_ide` whenever a browser wants HTML; it decides.
        super().__init__(
            schema,
            graphql_ide="graphiql",
            multipart_uploads_enabled=False,
            subscription_protocols=(),
        )
        self.graphiql_enabled = graphiql
        self.hide_suggestions = hide_suggestions
        self.front_door = front_door

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await WebSocketClose()(scope, receive, send)
            return
        try:
            response = await self.run(Request(scope, receive))
        except UnreadableRequest as unreadable:
            response = unreadable.response(Headers(scope=scope).get("accept"))
        except HTTPException as refused:
            if refused.status_code == 400:
                # A request GraphQL cannot read (no query, a non-string operationName): coded,
                # as contract §7 asks of every 4xx for such a request.
                unread = UnreadableRequest(UnreadableJson(refused.reason))
                response = unread.response(Headers(scope=scope).get("accept"))
            else:
                headers = refused.headers if isinstance(refused, Refused) else {}
                response = PlainTextResponse(refused.reason, refused.status_code, headers=headers)
        await response(scope, receive, send)

    def should_render_graphql_ide(self, request: BaseRequestProtocol) -> bool:
        return (
            request.method == "GET"
            and request.query_params.get("query") is None
            and graphql_http.prefers_html(request.headers.get("accept"))
        )

    async def render_graphql_ide(self, request: Request) -> Response:
        if not self.graphiql_enabled:
            raise Refused(
                406,
                "This endpoint answers GraphQL requests in JSON; its GraphiQL page is disabled "
                "(GRAPHIQL_ENABLED=false). Send `POST` with a JSON body or `GET ?query=`.",
            )
        return graphiql_page()

    async def get_sub_response(self, request: Request | WebSocket) -> Response:
        media_type = graphql_http.response_media_type(request.headers.get("accept"))
        if media_type is None and not self.should_render_graphql_ide(
            StarletteRequestAdapter(request)  # type: ignore[arg-type]  # only HTTP gets here
        ):
            raise Refused(
                406,
                f"Accept one of {', '.join(graphql_http.SUPPORTED)} "
                "(GraphQL over HTTP); none of them is in the Accept header.",
            )
        return SubResponse(media_type or graphql_http.JSON)

    async def get_context(self, request: Request, response: Response | Any) -> RequestContext:  # type: ignore[override]
        services: Services = request.app.state.services
        caller = identify(services.authenticator, services.gateway_token, request.headers)
        request.state.grant = caller.grant  # whose rate `extensions.cost` reports
        return RequestContext(
            answers=services.answer_context(),
            grant=caller.grant,
            auth_error=caller.refusal,
            through_gateway=caller.through_gateway,
        )

    def parse_json(self, data: str | bytes) -> Any:
        """The body, or GET's `variables` and `extensions`, read within api/json_body.py's
        limits (Strawberry's own decoder lets a deep body raise RecursionError: a 500)."""
        try:
            return read_json(data)
        except UnreadableJson as unreadable:
            raise UnreadableRequest(unreadable) from None

    async def parse_http_body(
        self, request: AsyncHTTPRequestAdapter
    ) -> GraphQLRequestData | list[GraphQLRequestData]:
        if request.method == "POST":
            content_type, _ = parse_content_type(request.content_type or "")
            if content_type != graphql_http.JSON:
                raise Refused(415, "Send the GraphQL request as `Content-Type: application/json`.")
            # Strawberry reads the body's fields with `.get`: anything but an object would
            # fail there (a 500). A batch (an array) is contract §7's too.
            if (await request.get_body()).lstrip()[:1] != b"{":
                raise UnreadableRequest(
                    UnreadableJson(
                        'The request body must be one JSON object, {"query": …}; a batch '
                        "(an array of operations) or any other value is not answered."
                    )
                )
        data = await super().parse_http_body(request)
        for item in data if isinstance(data, list) else [data]:
            if not isinstance(item.operation_name, str | None):
                raise Refused(400, "The `operationName` must be a string or null, if provided.")
        return data

    async def execute_operation(
        self,
        request: Request,
        request_adapter: AsyncHTTPRequestAdapter,
        request_data: GraphQLRequestData | list[GraphQLRequestData],
        context: RequestContext,
        root_value: None,
        sub_response: Response,
    ) -> ExecutionResult | list[ExecutionResult] | SubscriptionExecutionResult:
        refusal = self.refusal(context, request_data) or await self.unchecked_graph(
            request.app.state.services
        )
        if refusal is None and isinstance(request_data, GraphQLRequestData):
            refusal = await self.resolve_persisted(
                request_data, request_adapter.method, sub_response, context.grant
            )
        if refusal is not None:
            return PreExecutionError(data=None, errors=[refusal])
        try:
            # The connection names the client: one refused that sends again before its
            # Retry-After is refused after a pause (api/front_door/admission.py).
            async with self.front_door.admitted(request.client, context.grant) as admitted:
                result = await super().execute_operation(
                    request, request_adapter, request_data, context, root_value, sub_response
                )
                admitted.refused(refusal_code(result))
            return result
        except Overloaded as overloaded:
            return PreExecutionError(data=None, errors=[self.request_error(overloaded)])
        except HTTPException as refused:
            if request_adapter.method == "GET" and isinstance(
                refused.__cause__, InvalidOperationTypeError
            ):
                # GraphQL over HTTP: a mutation over GET is 405, whatever the media type.
                raise Refused(
                    405, "Mutations are only accepted with POST.", {"Allow": "POST"}
                ) from refused
            raise

    @staticmethod
    def refusal(
        context: RequestContext, request_data: GraphQLRequestData | list[GraphQLRequestData]
    ) -> GraphQLError | None:
        """The request error that stops the request before Strawberry parses it, if any."""
        if context.auth_error is not None:
            # Nothing of the schema is revealed to a caller without valid credentials.
            refused = GraphQLError(context.auth_error.message, original_error=context.auth_error)
            log_error(refused)
            return coded_error(refused)
        # Other checks of the document run on the one, token-limited parse
        # (api/graphql_document.py): nothing here reads the document's text.
        return None

    async def resolve_persisted(
        self,
        request_data: GraphQLRequestData,
        method: str,
        sub_response: Response,
        grant: Grant | None,
    ) -> GraphQLError | None:
        """The document a persisted operation names goes into `request_data.query`
        (api/front_door/persisted_queries.py), from what callers of the same grant taught it; its
        refusal, if any."""
        persisted = self.front_door.persisted
        if persisted is None:
            return None
        partition = None if grant is None else grant.workspaces
        try:
            query = await persisted.resolve(request_data.query, request_data.extensions, partition)
        except EvidenceGraphError as refused:
            return self.request_error(refused)
        if method == "GET" and query is not None and request_data.query is None:
            sub_response.headers["cache-control"] = "private"
            sub_response.headers["vary"] = "Authorization"
        request_data.query = query
        return None

    @staticmethod
    def request_error(error: EvidenceGraphError) -> GraphQLError:
        refused = GraphQLError(error.message, original_error=error)
        log_error(refused)
        return coded_error(refused)

    @staticmethod
    async def unchecked_graph(services: Services) -> GraphQLError | None:
        """BACKEND_UNAVAILABLE while the graph's start checks cannot pass (api/graph_checks.py):
        nothing is answered from a graph whose vectors were not checked against the embedder."""
        try:
            await services.ensure_graph_checked()
        except BackendUnavailable as unavailable:
            return coded_error(GraphQLError(unavailable.message, original_error=unavailable))
        return None

    async def process_result(
        self, request: Request, result: ExecutionResult
    ) -> GraphQLHTTPResponse:
        if result.errors:
            result.errors = ensure_coded(result.errors, self.hide_suggestions)
        body = process_result(result)
        note_errors(body.get("errors") or [])
        record = request_record.current.get()
        body["extensions"] = {
            **(body.get("extensions") or {}),
            "cost": await self.front_door.cost_extension(
                record.cost if record is not None else None, getattr(request.state, "grant", None)
            ),
        }
        if graphql_http.is_request_error(result.data, result.errors):
            # The GraphQL specification: an error before execution leaves no `data` entry.
            body.pop("data", None)
        return body

    def encode_json(self, data: object) -> str | bytes:
        """The response body, encoded by orjson (a 14 kB search answer: 6 µs instead of the
        standard encoder's 110 µs); what orjson refuses (a string with a lone surrogate, which
        an error may quote from the request) goes to the standard encoder, as before."""
        try:
            return orjson.dumps(data)
        except TypeError:
            return super().encode_json(data)

    def create_response(
        self,
        response_data: GraphQLHTTPResponse | list[GraphQLHTTPResponse],
        sub_response: Response,
    ) -> Response:
        response = super().create_response(response_data, sub_response)
        media_type = getattr(sub_response, "negotiated", graphql_http.JSON)
        response.headers["content-type"] = f"{media_type}; charset=utf-8"
        if isinstance(response_data, dict):
            response.status_code = graphql_http.response_status(media_type, response_data)
            if response.status_code == 401:
                response.headers["www-authenticate"] = "Bearer"
            retry_after = graphql_http.retry_after(response_data)
            if retry_after is not None:
                response.headers["retry-after"] = str(retry_after)
        return response
