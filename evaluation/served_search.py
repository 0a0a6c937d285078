"""The service's own answers: `searchEntities` sent to the app in-process, as a client would.

The app is the one `evidencegraph serve` runs (`api.app.create_app`: its lifespan loads the
configured embedder and checks the graph), reached over ASGI instead of a socket, so what the
eval measures is exactly what the service serves with the variant's settings.
"""

from __future__ import annotations

from collections.abc import AsyncIterator, Sequence
from contextlib import asynccontextmanager
from typing import Any

import httpx

from api.app import create_app
from api.settings import Settings
from evaluation.metrics import Answer, Hit
from evaluation.queryset import LabelledQuery

MODES = ("HYBRID", "LEXICAL", "SEMANTIC")

SEARCH = """
query Eval($query: String!, $mode: SearchMode!, $limit: Int!, $workspaces: [String!]) {
  searchEntities(query: $query, mode: $mode, limit: $limit, supportLimit: 0,
                 scope: {workspaces: $workspaces}) {
    entity { id name }
  }
}
"""


class SearchFailed(RuntimeError):
    """The service answered a search with errors; the message holds them."""


class ServedSearch:
    """Sends searches to one in-process app."""

    def __init__(self, http: httpx.AsyncClient, workspaces: Sequence[str] | None) -> None:
        self._http = http
        self._workspaces = list(workspaces) if workspaces is not None else None

    async def hits(self, query: str, mode: str, limit: int) -> tuple[Hit, ...]:
        variables: dict[str, Any] = {
            "query": query,
            "mode": mode,
            "limit": limit,
            "workspaces": self._workspaces,
        }
        response = await self._http.post("/graphql", json={"query": SEARCH, "variables": variables})
        body = response.json()
        if body.get("errors"):
            raise SearchFailed(f"{query!r} ({mode}): {body['errors']}")
        return tuple(
            Hit(hit["entity"]["id"], hit["entity"]["name"])
            for hit in body["data"]["searchEntities"]
        )

    async def answer(self, query: LabelledQuery, mode: str) -> Answer:
        return Answer(
            query,
            await self.hits(query.query, mode, 5),
            await self.hits(query.query, mode, 10),
        )

    async def answers(self, queries: Sequence[LabelledQuery], mode: str) -> list[Answer]:
        return [await self.answer(query, mode) for query in queries]


@asynccontextmanager
async def served(
    settings: Settings, workspaces: Sequence[str] | None
) -> AsyncIterator[ServedSearch]:
    """The app with `settings`, started (lifespan) and ready for searches."""
    app = create_app(settings)
    async with app.router.lifespan_context(app):
        transport = httpx.ASGITransport(app=app)
        async with httpx.AsyncClient(transport=transport, base_url="http://127.0.0.1") as http:
            yield ServedSearch(http, workspaces)
