"""MCP sessions with the SDK's own client, over both transports:

- Streamable HTTP at `/mcp` of the app in-process (its statements counted by the test `Client`);
- stdio: `evidencegraph mcp` in its own process, with the settings given.

    async with http_session(client, token="…") as session: await session.call_tool(…)
"""

from __future__ import annotations

import json
import os
import sys
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Any

import httpx
from mcp import ClientSession, StdioServerParameters, types
from mcp.client.stdio import stdio_client
from mcp.client.streamable_http import streamable_http_client

from tests.conftest import TEST_DIMENSION, Client
from tests.support.node_tools import REPOSITORY


@asynccontextmanager
async def http_session(client: Client, token: str | None = None) -> AsyncIterator[ClientSession]:
    headers = {"authorization": f"Bearer {token}"} if token else {}
    transport = httpx.ASGITransport(app=client.app)
    async with (
        httpx.AsyncClient(
            transport=transport, base_url="http://127.0.0.1", headers=headers
        ) as http,
        streamable_http_client("http://127.0.0.1/mcp", http_client=http) as (read, write, _),
        ClientSession(read, write) as session,
    ):
        await session.initialize()
        yield session


def stdio_environment(neo4j_uri: str, **settings: str) -> dict[str, str]:
    return {
        **os.environ,
        "NEO4J_URI": neo4j_uri,
        "EMBEDDER": "hash",
        "EMBEDDER_DIM": str(TEST_DIMENSION),
        **settings,
    }


@asynccontextmanager
async def stdio_session(neo4j_uri: str, log: Path, **settings: str) -> AsyncIterator[ClientSession]:
    parameters = StdioServerParameters(
        command=sys.executable,
        args=["-m", "commands.main", "mcp"],
        env=stdio_environment(neo4j_uri, **settings),
        cwd=REPOSITORY,
    )
    with log.open("w") as errors:
        async with (
            stdio_client(parameters, errlog=errors) as (read, write),
            ClientSession(read, write) as session,
        ):
            await session.initialize()
            yield session


def structured(result: types.CallToolResult) -> dict[str, Any]:
    """A successful call's structured content; fails with the call's text otherwise."""
    assert not result.isError, result.content
    assert result.structuredContent is not None
    return result.structuredContent


def text_of(result: types.CallToolResult) -> str:
    block = result.content[0]
    assert isinstance(block, types.TextContent)
    return block.text


def error_of(result: types.CallToolResult) -> dict[str, Any]:
    """A failed call's `{"code", "message", …}`; checks its text starts with the code."""
    assert result.isError, result.content
    assert result.structuredContent is not None
    error: dict[str, Any] = result.structuredContent["error"]
    assert text_of(result).startswith(f"{error['code']}: "), text_of(result)
    json.dumps(error)  # plain JSON
    return error
