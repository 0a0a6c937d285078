"""The MCP server object: `tools/list` answers the six read-only tools, `tools/call` answers
one through mcpserver/answering.py. An error is a tool error (`isError`) whose text starts with
the contract's code and whose structured content is `{"error": {"code", "message", …}}`, with
the same codes and messages as the GraphQL errors (contract §7); anything unexpected is INTERNAL,
logged here and never sent."""

from __future__ import annotations

import logging
from collections.abc import Awaitable, Callable
from typing import Any

from mcp import types
from mcp.server.lowlevel import Server
from starlette.requests import Request

from answers.context import AnswerContext
from contract.errors import EvidenceGraphError, Internal, Malformed
from contract.scope import Grant
from mcpserver.answering import ANSWERERS
from mcpserver.arguments import Arguments
from mcpserver.fitting import fit
from mcpserver.tools import TOOLS

log = logging.getLogger(__name__)

SERVER_NAME = "evidencegraph"
INSTRUCTIONS = (
    "A knowledge graph that shows the passages behind every answer. Typical use: "
    "search_entities for who or what, get_entity for one entity's evidence and relations, walk "
    "to explore relations further, search_passages for what a text says, get_passage to read "
    "one passage in full. Quote evidence passages with their document titles; an UNSUPPORTED "
    "entity and a PATH edge have no supporting passage."
)

# Who is calling and what they may read, for one tool call: the HTTP door reads it from the
# request (its bearer token), the stdio door has one for the whole process. Both give the
# context only once the graph's start checks have passed (BackendUnavailable until then).
CallerOf = Callable[[Request | None], Awaitable[tuple[AnswerContext, Grant]]]


def error_result(error: EvidenceGraphError) -> types.CallToolResult:
    return types.CallToolResult(
        content=[types.TextContent(type="text", text=f"{error.code}: {error.message}")],
        structuredContent={
            "error": {"code": error.code, "message": error.message, **error.extensions}
        },
        isError=True,
    )


async def call_tool(
    caller_of: CallerOf,
    request: Request | None,
    name: str,
    arguments: dict[str, Any] | None,
    max_chars: int,
) -> types.CallToolResult:
    answerer = ANSWERERS.get(name)
    try:
        if answerer is None:
            raise Malformed("name", "no such tool; tools/list names them")
        context, grant = await caller_of(request)
        answer = await answerer(context, grant, Arguments(arguments))
    except EvidenceGraphError as error:
        log.info("tool %s: client error %s: %s", name, error.code, error.message)
        return error_result(error)
    except Exception:
        log.exception("tool %s failed unexpectedly", name)
        return error_result(Internal())
    content, text = fit(name, answer, max_chars)
    return types.CallToolResult(
        content=[types.TextContent(type="text", text=text)], structuredContent=content
    )


def create_server(caller_of: CallerOf, max_chars: int) -> Server[Any, Request]:
    server: Server[Any, Request] = Server(SERVER_NAME, instructions=INSTRUCTIONS)

    @server.list_tools()  # type: ignore[no-untyped-call]
    async def list_tools() -> list[types.Tool]:
        return list(TOOLS)

    # The arguments are checked by mcpserver/arguments.py, so that a refusal carries the
    # contract's MALFORMED and the argument's name rather than the SDK's own wording.
    @server.call_tool(validate_input=False)
    async def handle(name: str, arguments: dict[str, Any] | None) -> types.CallToolResult:
        request = server.request_context.request
        return await call_tool(caller_of, request, name, arguments, max_chars)

    return server
