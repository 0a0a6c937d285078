"""Everything one workspace's caller reads, as values a test compares before and after a write:
the lookups (`entity`, `passage`), walks of depth 1 and 2 from every entity, federation
`_entities` under a grant of that workspace alone, the MCP lookups (`get_entity`,
`get_passage`), and the searches in the three modes.

Lookups, walks, `_entities` and the MCP lookups must be byte-identical (`exact`). Searches are
kept apart (`searches`): which entities appear, their ranks and scores may move where BM25
statistics and seed step 3's vector read span workspaces (docs/security.md), so only the
fields and evidence of a hit that appears in both are compared (`moved_hits`).
"""

from __future__ import annotations

import asyncio
import json
from dataclasses import dataclass, field
from typing import Any

from mcp import ClientSession

from tests.conftest import Client, without_request_ids

MODES = ("LEXICAL", "SEMANTIC", "HYBRID")
READS_AT_ONCE = 4
PASSAGE = (
    "fragment P on Passage { id text position version"
    " document { id workspace title uri currentVersion } }"
)
ENTITY = "fragment E on Entity { id name labels description evidence(limit: 10) { ...P } }"
WALK = (
    "{ start { ...E } nodes { ...E } truncatedBy edges { id type kind depth"
    " source { id } target { id } evidenceIds evidence { ...P } } }"
)


@dataclass
class WorkspaceCaller:
    """A caller granted one workspace: GraphQL through `client` with `headers`, MCP through
    `session` (opened with the same grant)."""

    workspace: str
    client: Client
    headers: dict[str, str]
    session: ClientSession

    @property
    def scope(self) -> dict[str, Any]:
        return {"workspaces": [self.workspace]}


@dataclass
class WorkspaceView:
    exact: dict[str, Any] = field(default_factory=dict)  # answer name -> body
    searches: dict[str, dict[str, Any]] = field(default_factory=dict)  # search -> id -> hit


async def _graphql(caller: WorkspaceCaller, query: str, variables: dict[str, Any]) -> Any:
    body = await caller.client.execute(query, variables, caller.headers)
    return without_request_ids(body)


async def _tool(caller: WorkspaceCaller, name: str, arguments: dict[str, Any]) -> Any:
    result = await caller.session.call_tool(name, arguments)
    # MCP names the workspaces a scope may use, so a scope naming the caller's own workspace
    # while it holds no document yet is refused (MALFORMED, `scope.workspaces`): that refusal
    # is what this workspace reads then. Any other error fails the test.
    error = (result.structuredContent or {}).get("error") or {}
    empty_workspace = error.get("code") == "MALFORMED" and error.get("argument") == (
        "scope.workspaces"
    )
    assert not result.isError or empty_workspace, result
    text = [content.model_dump() for content in result.content]
    return {"structured": result.structuredContent, "text": text, "isError": result.isError}


def _lookups(entity_ids: list[str], passage_ids: list[str]) -> str:
    fields = [
        f'n{i}: entity(id: "{e}", scope: $scope) {{ ...E }}' for i, e in enumerate(entity_ids)
    ]
    fields += [
        f'c{i}: passage(id: "{c}", scope: $scope) {{ ...P }}' for i, c in enumerate(passage_ids)
    ]
    return "query L($scope: ScopeInput) { " + " ".join(fields) + " } " + PASSAGE + ENTITY


def _federation(
    entity_ids: list[str], passage_ids: list[str], document_ids: list[str]
) -> tuple[str, dict[str, Any]]:
    representations = [{"__typename": "Entity", "id": e} for e in entity_ids]
    representations += [{"__typename": "Passage", "id": c} for c in passage_ids]
    representations += [{"__typename": "Document", "id": d} for d in document_ids]
    query = (
        "query F($r: [_Any!]!) { _entities(representations: $r) { __typename"
        " ... on Entity { ...E } ... on Passage { ...P }"
        " ... on Document { id workspace title uri currentVersion } } } " + PASSAGE + ENTITY
    )
    return query, {"r": representations}


def _search(kind: str, mode: str) -> str:
    if kind == "entities":
        return (
            "query S($q: String!, $scope: ScopeInput) { found: searchEntities(query: $q,"
            f" scope: $scope, mode: {mode}, limit: 100, supportLimit: 10) {{ entity {{ ...E }}"
            " status evidenceIds evidence { ...P } } } " + PASSAGE + ENTITY
        )
    return (
        "query S($q: String!, $scope: ScopeInput) { found: searchPassages(query: $q,"
        f" scope: $scope, mode: {mode}, limit: 100) {{ passage {{ ...P }} }} }} " + PASSAGE
    )


async def workspace_view(
    caller: WorkspaceCaller,
    entity_ids: list[str],
    passage_ids: list[str],
    document_ids: list[str],
    queries: list[str],
) -> WorkspaceView:
    """What `caller` reads of these ids and these queries (ids of any workspace, and missing).

    The reads are independent of each other, so they are sent a few at a time (READS_AT_ONCE):
    the server and Neo4j then use both cores, and the answers are the same as one by one."""
    scope = {"scope": caller.scope}
    at_once = asyncio.Semaphore(READS_AT_ONCE)

    async def graphql(query: str, variables: dict[str, Any]) -> Any:
        async with at_once:
            return await _graphql(caller, query, variables)

    async def tool(name: str, arguments: dict[str, Any]) -> Any:
        async with at_once:
            return await _tool(caller, name, arguments)

    exact: dict[str, Any] = {}
    if entity_ids or passage_ids:  # a load whose every line is refused names none
        exact["lookups"] = graphql(_lookups(entity_ids, passage_ids), scope)
    for depth in (1, 2):
        for entity_id in entity_ids:
            query = (
                f'query W($scope: ScopeInput) {{ walk(entityId: "{entity_id}", scope: $scope,'
                f" depth: {depth}) {WALK} }} " + PASSAGE + ENTITY
            )
            exact[f"walk {depth} {entity_id}"] = graphql(query, scope)
    exact["_entities"] = graphql(*_federation(entity_ids, passage_ids, document_ids))
    for entity_id in entity_ids:
        exact[f"get_entity {entity_id}"] = tool("get_entity", {"id": entity_id, **scope})
    for passage_id in passage_ids:
        exact[f"get_passage {passage_id}"] = tool("get_passage", {"id": passage_id, **scope})
    searches = {
        (kind, mode, text): graphql(_search(kind, mode), {"q": text, **scope})
        for text in queries
        for kind in ("entities", "passages")
        for mode in MODES
    }
    answers = await asyncio.gather(*exact.values(), *searches.values())
    view = WorkspaceView(exact=dict(zip(exact, answers[: len(exact)], strict=True)))
    assert "errors" not in view.exact.get("lookups", {}), view.exact["lookups"]
    assert "errors" not in view.exact["_entities"], view.exact["_entities"]
    for (kind, mode, text), body in zip(searches, answers[len(exact) :], strict=True):
        assert "errors" not in body, body
        key = "entity" if kind == "entities" else "passage"
        view.searches[f"{kind} {mode} {text!r}"] = {
            hit[key]["id"]: hit for hit in body["data"]["found"]
        }
    return view


def moved_hits(before: WorkspaceView, after: WorkspaceView) -> dict[str, Any]:
    """The hits found both before and after whose fields or evidence differ, per search."""
    moved: dict[str, Any] = {}
    for search, hits in before.searches.items():
        later = after.searches[search]
        changed = {
            hit_id: {"before": hit, "after": later[hit_id]}
            for hit_id, hit in hits.items()
            if hit_id in later and json.dumps(hit) != json.dumps(later[hit_id])
        }
        if changed:
            moved[search] = changed
    return moved


def changed_answers(before: WorkspaceView, after: WorkspaceView) -> dict[str, Any]:
    """The exact answers that differ, each with its two bodies."""
    return {
        name: {"before": body, "after": after.exact[name]}
        for name, body in before.exact.items()
        if json.dumps(body, sort_keys=False) != json.dumps(after.exact[name], sort_keys=False)
    }
