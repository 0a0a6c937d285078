"""The two callers every scope property asks through: AUTH_MODE=none (every workspace) and
API keys granting each subset of w0–w2, over one graph holding the world's schema and ballast."""

from __future__ import annotations

import json
from collections.abc import AsyncIterator
from contextlib import AsyncExitStack, asynccontextmanager
from dataclasses import dataclass
from itertools import combinations
from pathlib import Path

from graph.driver import Graph
from graph.graph_schema import apply_schema
from tests.conftest import Client, serving
from tests.support.auth_material import bearer
from tests.support.scope_world import (
    BALLAST_SIZE,
    DIMENSION,
    LABELS,
    WORD,
    WORKSPACES,
    WRITE_BALLAST,
    query_vector,
)

GRANTS = [frozenset(c) for n in range(len(WORKSPACES) + 1) for c in combinations(WORKSPACES, n)]


@dataclass
class Callers:
    everything: Client
    keyed: Client
    keys: dict[frozenset[str], str]

    def for_grant(self, grant: frozenset[str] | None) -> tuple[Client, dict[str, str]]:
        if grant is None:
            return self.everything, {}
        return self.keyed, bearer(self.keys[grant])


@asynccontextmanager
async def scope_callers(
    neo4j_uri: str, graph: Graph, tmp_path: Path, **settings: str
) -> AsyncIterator[Callers]:
    """Both callers, served with the limits a fat aliased request needs, plus `settings`."""
    await apply_schema(graph, DIMENSION, labels=list(LABELS))
    await graph.write(WRITE_BALLAST, {"size": BALLAST_SIZE})
    keys = {grant: f"key-{'-'.join(sorted(grant)) or 'none'}-0123456789abcdef" for grant in GRANTS}
    keys_file = tmp_path / "keys.json"
    keys_file.write_text(json.dumps({key: sorted(grant) for grant, key in keys.items()}))
    limits = {"GRAPHQL_MAX_ALIASES": "500", "GRAPHQL_MAX_TOKENS": "100000", **settings}
    keyed_auth = {"AUTH_MODE": "apikeys", "AUTH_API_KEYS_FILE": str(keys_file)}
    async with AsyncExitStack() as stack:
        everything = await stack.enter_async_context(serving(neo4j_uri, graph, **limits))
        keyed = await stack.enter_async_context(serving(neo4j_uri, graph, **keyed_auth, **limits))
        for client in (everything, keyed):
            client.embedder.script(WORD, query_vector())
        yield Callers(everything, keyed, keys)
