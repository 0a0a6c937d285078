"""`evidencegraph mcp`: the MCP server on standard input and output (contract §11, §12).

The process is its own caller: it is granted the workspaces MCP_WORKSPACES names, and refuses
to start without them unless AUTH_MODE=none is set explicitly (then every workspace). Standard
output carries the protocol only; logs go to standard error. Its tool calls pass the front door
the HTTP door's pass (api/front_door/door.py, from the same GRAPHQL_* settings): the cost limit, an
admission slot, the rate limit when one is set, the pacing of refusals.
"""

from __future__ import annotations

import argparse
from collections.abc import Awaitable, Callable

from mcp.server.stdio import stdio_server
from starlette.requests import Request

from answers.context import AnswerContext
from api.embedder_setup import configured_identity
from api.front_door.door import FrontDoor
from api.lifespan import open_services
from api.settings import Settings, SettingsError
from commands.exit_codes import EXIT_OK
from commands.runtime import run_command
from contract.scope import Grant
from mcpserver.answering import ToolAnswer
from mcpserver.server import create_server


class ProcessGrant:
    """The authenticator of a process that speaks to one local client: one fixed grant."""

    def __init__(self, grant: Grant) -> None:
        self.grant = grant

    def authenticate(self, authorization: str | None) -> Grant:
        return self.grant


def stdio_grant(settings: Settings) -> Grant:
    if settings.mcp_workspaces is not None:
        return Grant.of(settings.mcp_workspaces)
    if settings.auth_mode == "none":
        return Grant.everything()
    raise SettingsError(
        "MCP_WORKSPACES is not set: name the workspaces this MCP server may read, "
        "comma-separated (e.g. MCP_WORKSPACES=demo), or set AUTH_MODE=none to grant every "
        "workspace (local development only)."
    )


async def serve_stdio(settings: Settings) -> int:
    grant = stdio_grant(settings)
    configured_identity(settings)  # a bad embedder setting stops here, with its message
    async with open_services(settings, ProcessGrant(grant)) as services:

        async def caller_of(request: Request | None) -> tuple[AnswerContext, Grant]:
            return await services.checked_answer_context(), grant

        front_door = FrontDoor.from_settings(settings)

        async def admit(
            request: Request | None, cost: int, answer: Callable[[], Awaitable[ToolAnswer]]
        ) -> ToolAnswer:
            return await front_door.answer_tool(None, grant, cost, answer)

        server = create_server(caller_of, admit, settings.mcp_max_result_chars)
        async with front_door.serving(), stdio_server() as (read_stream, write_stream):
            await server.run(read_stream, write_stream, server.create_initialization_options())
    return EXIT_OK


def _handle(arguments: argparse.Namespace) -> int:
    return run_command(serve_stdio)


def register(subcommands: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    parser = subcommands.add_parser(
        "mcp",
        help="the MCP server on stdio, for agents",
        description=(
            "The MCP server (tools search_entities, search_passages, walk, walk_between, "
            "get_entity, get_entities, get_evidence, get_passage, entity_labels, "
            "describe_graph) on standard input and output. It reads the "
            "workspaces MCP_WORKSPACES names (comma-separated); without it, only "
            "AUTH_MODE=none starts it. Over HTTP, the service serves the same tools at /mcp."
        ),
    )
    parser.set_defaults(handler=_handle)
