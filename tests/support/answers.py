"""Everything a caller can ask about a small graph, in one comparable value: the answers of
entity and passage search in every mode, lookups by id, walks and `_entities` (tests of
delete and purge compare them before and after)."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from tests.conftest import Client

MODES = ("LEXICAL", "SEMANTIC", "HYBRID")
PASSAGE = (
    "fragment P on Passage { id text position version document { id workspace title"
    " currentVersion } }"
)
ENTITY = "fragment E on Entity { id name labels description evidence(limit: 10) { ...P } }"


def _hit(with_scores: bool) -> str:
    score = " score" if with_scores else ""
    return (
        "fragment H on EntityHit { entity { ...E } status lexicalRank semanticRank evidenceIds"
        " evidence { ...P }" + score + " }"
    )


WALK = (
    "start { id } nodes { ...E } truncatedBy edges { id type kind depth source { id }"
    " target { id } evidenceIds evidence { ...P } }"
)
ENTITIES = """
query($representations: [_Any!]!) {
  _entities(representations: $representations) {
    __typename
    ... on Entity { id name labels }
    ... on Passage { id text version document { id } }
    ... on Document { id workspace title currentVersion }
  }
}
"""


async def _data(client: Client, query: str, variables: dict[str, Any]) -> Any:
    body = await client.execute(query, variables)
    if "errors" in body:
        return {"errors": sorted(e["extensions"]["code"] for e in body["errors"])}
    return body["data"]


async def answers(
    client: Client,
    *,
    query: str,
    entity_ids: Sequence[str],
    passage_ids: Sequence[str],
    document_ids: Sequence[str],
    scope: dict[str, Any] | None = None,
    with_scores: bool = True,
    walk_depth: int = 2,
) -> dict[str, Any]:
    """What `scope` (None: every workspace) answers: searches for `query` in every mode (its
    vector must be scripted), every entity and passage by id, a walk from every entity, and
    `_entities` for every entity, passage and document (which takes no scope: only when
    `scope` is None)."""
    # One request per search and one for the lookups: a request has a time limit, and a
    # loaded machine plans each new statement slowly.
    requests = {
        f"{mode.lower()} {kind}": [field]
        for mode in MODES
        for kind, field in (
            (
                "entities",
                f"searchEntities(query: $query, scope: $scope, mode: {mode},"
                " limit: 100, supportLimit: 10) { ...H }",
            ),
            (
                "passages",
                f"searchPassages(query: $query, scope: $scope, mode: {mode}, limit: 100)"
                " { passage { ...P } lexicalRank semanticRank"
                + (" score" if with_scores else "")
                + " }",
            ),
        )
    }
    requests["lookups"] = [
        f'e{i}: entity(id: "{e}", scope: $scope) {{ ...E }}' for i, e in enumerate(entity_ids)
    ] + [f'p{i}: passage(id: "{p}", scope: $scope) {{ ...P }}' for i, p in enumerate(passage_ids)]
    result: dict[str, Any] = {}
    for name, fields in requests.items():
        text = " ".join(fields)
        fragments = [PASSAGE] + [ENTITY] * ("...E" in text or "...H" in text)
        fragments += [_hit(with_scores)] * ("...H" in text)
        searched = "$query" in fields[0]
        operation = (
            (
                "query($query: String!, $scope: ScopeInput) { "
                if searched
                else "query($scope: ScopeInput) { "
            )
            + " ".join(fields)
            + " } "
            + " ".join(fragments)
        )
        variables = {"query": query, "scope": scope} if searched else {"scope": scope}
        result[name] = await _data(client, operation, variables)
    for entity_id in entity_ids:
        walk = (
            f'query($scope: ScopeInput) {{ walk(entityId: "{entity_id}", scope: $scope,'
            f" depth: {walk_depth}) {{ {WALK} }} }} {ENTITY} {PASSAGE}"
        )
        result[f"walk {entity_id}"] = await _data(client, walk, {"scope": scope})
    if scope is None:
        representations = (
            [{"__typename": "Entity", "id": i} for i in entity_ids]
            + [{"__typename": "Passage", "id": i} for i in passage_ids]
            + [{"__typename": "Document", "id": i} for i in document_ids]
        )
        result["_entities"] = await _data(client, ENTITIES, {"representations": representations})
    return result
