"""The MCP server object: `tools/list` answers the read-only tools, `tools/call` answers one
through mcpserver/answering.py. An error is a tool error (`isError`) whose text starts with the
contract's code and whose structured content is `{"error": {"code", "message", …, "advice"}}`,
with the same codes and messages as the GraphQL errors (contract §7) but INDEX_NOT_READY's,
worded for an agent, and what to do about it (mcpserver/error_advice.py); anything unexpected
is INTERNAL, logged here and never sent.

Every call passes the front door before it reads anything (contract §7, "The front door is one
for every door"): `Admit`, which each door gives (api/front_door/door.py `FrontDoor.answer_tool`:
an admission slot, the call's cost from mcpserver/tool_costs.py against GRAPHQL_MAX_COST and
its caller's rate, the pacing of refusals), refused with the GraphQL codes: COST_LIMIT_EXCEEDED,
RATE_LIMITED and OVERLOADED, the last two with `retryAfter`."""

from __future__ import annotations

import functools
import logging
from collections.abc import Awaitable, Callable
from typing import Any

from mcp import types
from mcp.server.lowlevel import Server
from starlette.requests import Request

from answers.context import AnswerContext
from contract.errors import EvidenceGraphError, Internal, Malformed
from contract.scope import Grant
from mcpserver.answering import ANSWERERS, Answerer, ToolAnswer
from mcpserver.arguments import Arguments
from mcpserver.error_advice import advice, agent_message, error_text, instructions_note
from mcpserver.fitting import fit
from mcpserver.tool_costs import tool_cost
from mcpserver.tools import TOOL_ARGUMENTS, TOOLS

log = logging.getLogger(__name__)

SERVER_NAME = "evidencegraph"
INSTRUCTIONS = (
    "A knowledge graph that shows the passages behind every answer. Typical use: "
    "describe_graph first (your workspaces and documents, the entity labels and relation "
    "types, and the terms every answer uses); search_entities for who or what; get_entity for "
    "one entity's evidence and relations; walk for all relations around one; walk_between for "
    "how two are connected; search_passages for what a text says; get_passage to read a "
    "passage whole; get_evidence for more of an entity's passages. Quote evidence with its "
    "document title; an UNSUPPORTED entity and a PATH edge have no supporting passage. "
    "`evidence` IDS or NONE makes answers shorter. " + instructions_note()
)

# Who is calling and what they may read, for one tool call: the HTTP door reads it from the
# request (its bearer token), the stdio door has one for the whole process. Both give the
# context only once the graph's start checks have passed (BackendUnavailable until then).
CallerOf = Callable[[Request | None], Awaitable[tuple[AnswerContext, Grant]]]
# The front door of one call: (its request, its cost, what answers it) → the answer, or the
# refusal raised before `answer` runs (see the module docstring).
Admit = Callable[[Request | None, int, Callable[[], Awaitable[ToolAnswer]]], Awaitable[ToolAnswer]]


def error_result(error: EvidenceGraphError) -> types.CallToolResult:
    """The error as a tool result: its code, its message (mcpserver/error_advice.py words
    INDEX_NOT_READY's for an agent) and what to do about it, in the text and the JSON."""
    return types.CallToolResult(
        content=[types.TextContent(type="text", text=error_text(error))],
        structuredContent={
            "error": {
                "code": error.code,
                "message": agent_message(error),
                **error.extensions,
                "advice": advice(error),
            }
        },
        isError=True,
    )


async def _answer(
    caller_of: CallerOf,
    request: Request | None,
    answerer: Answerer,
    name: str,
    arguments: dict[str, Any] | None,
) -> ToolAnswer:
    context, grant = await caller_of(request)
    return await answerer(context, grant, Arguments(arguments, TOOL_ARGUMENTS[name]))


async def call_tool(
    caller_of: CallerOf,
    admit: Admit,
    request: Request | None,
    name: str,
    arguments: dict[str, Any] | None,
    max_chars: int,
) -> types.CallToolResult:
    answerer = ANSWERERS.get(name)
    try:
        if answerer is None:
            raise Malformed("name", "no such tool; tools/list names them")

        # Priced before anything is read, as a GraphQL document is.
        read = functools.partial(_answer, caller_of, request, answerer, name, arguments)
        answer = await admit(request, tool_cost(name, arguments), read)
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


def create_server(caller_of: CallerOf, admit: Admit, max_chars: int) -> Server[Any, Request]:
    """`admit`: the door's front door (see the module docstring)."""
    server: Server[Any, Request] = Server(SERVER_NAME, instructions=INSTRUCTIONS)

    @server.list_tools()  # type: ignore[no-untyped-call]
    async def list_tools() -> list[types.Tool]:
        return list(TOOLS)

    # The arguments are checked by mcpserver/arguments.py, so that a refusal carries the
    # contract's MALFORMED and the argument's name rather than the SDK's own wording.
    @server.call_tool(validate_input=False)
    async def handle(name: str, arguments: dict[str, Any] | None) -> types.CallToolResult:
        request = server.request_context.request
        return await call_tool(caller_of, admit, request, name, arguments, max_chars)

    return server
