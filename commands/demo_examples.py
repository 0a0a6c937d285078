"""The two example queries `evidencegraph demo` prints, built for the data it loaded: an entity
search with its evidence, and a walk from a real entity of the demo data set.

They are printed twice: as GraphQL to paste into GraphiQL, and as `curl` commands. The README
shows the same text (a test keeps the two in step).

>>> print(search_query())  # doctest: +ELLIPSIS
{
  searchEntities(query: "alien communication", ...
"""

from __future__ import annotations

import json

from ingest.document_version import DocumentVersion

SEARCH_TEXT = "alien communication"  # found by name (lexical) and by meaning (semantic)
WALK_FROM = "ALEX MERCER"  # the novella's lead; any entity would do


def search_query() -> str:
    return (
        "{\n"
        f"  searchEntities(query: {json.dumps(SEARCH_TEXT)}, limit: 3, supportLimit: 1) {{\n"
        "    entity { id name labels }\n"
        "    status lexicalRank semanticRank\n"
        "    evidence { id position text document { title workspace } }\n"
        "  }\n"
        "}"
    )


def walk_query(entity_id: str) -> str:
    return (
        "{\n"
        f'  walk(entityId: "{entity_id}", maxEdges: 5) {{\n'
        "    start { name }\n"
        "    edges { type kind source { name } target { name } evidence { id position } }\n"
        "    truncatedBy\n"
        "  }\n"
        "}"
    )


def walk_start(versions: list[DocumentVersion]) -> str:
    """The id of the entity the walk starts from: WALK_FROM if the data has it, otherwise the
    entity with the most relations."""
    entities = [entity for version in versions for entity in version.entities]
    for entity in entities:
        if entity.name == WALK_FROM:
            return entity.id
    ends = [end for v in versions for r in v.relations for end in (r.source, r.target)]
    return max(sorted(set(ends)), key=ends.count) if ends else entities[0].id


def curl_command(url: str, query: str) -> str:
    """A shell command that sends `query` (it holds no single quote, so quoting is safe)."""
    body = json.dumps({"query": " ".join(query.split())})
    if "'" in body:
        raise ValueError("a query with a single quote needs other shell quoting")
    return f"curl -s {url} -H 'content-type: application/json' -d '{body}'"


def banner(url: str, entity_id: str) -> str:
    search, walk = search_query(), walk_query(entity_id)
    return "\n".join(
        [
            "",
            f"GraphiQL: {url}  (open it in a browser; Ctrl-C stops the service)",
            f"Explorer: {url.removesuffix('/graphql')}/explore  (search, read the evidence, walk)",
            "",
            "Try these in GraphiQL.",
            "",
            "# 1. Entities found by name and by meaning, each with the passage that supports it",
            search,
            "",
            f"# 2. The relations around {WALK_FROM.title()}, each with its evidence",
            walk,
            "",
            "Or from a shell:",
            curl_command(url, search),
            curl_command(url, walk),
            "",
            f"MCP (for agents, docs/mcp.md): {url.removesuffix('/graphql')}/mcp",
            "",
        ]
    )
