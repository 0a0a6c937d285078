"""`grantedWorkspaces` (docs/contract.md §6; issue 26, "Scope: the workspaces the token grants"):
the workspaces the caller's credentials grant, sorted, answered from the credentials alone (no
statement reaches Neo4j); when they grant every workspace (AUTH_MODE=none, contract §8), the
workspaces that hold a document a reader could see (issue 40 §4), in one statement. Tested on
the app with each AUTH_MODE, its statements counted."""

from __future__ import annotations

import json
from pathlib import Path

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from graph import retirement
from graph.driver import Graph
from tests.conftest import serving, without_request_ids
from tests.support.auth_material import HS_SECRET, bearer, claims, hs256
from tests.support.graph_builder import GraphBuilder

GRANTED = "{ grantedWorkspaces }"
ACME_KEY = "acme-reader-1a2b3c4d5e6f7a8b9c0d"
BOTH_KEY = "both-reader-9f8e7d6c5b4a3f2e1d0c"
NOTHING_KEY = "nothing-reader-0a9b8c7d6e5f4a3b2c1d"


async def test_each_api_key_is_told_its_own_grant_sorted(
    neo4j_uri: str, graph: Graph, tmp_path: Path
) -> None:
    keys = tmp_path / "keys.json"
    keys.write_text(json.dumps({ACME_KEY: ["acme"], BOTH_KEY: ["globex", "acme"], NOTHING_KEY: []}))
    async with serving(
        neo4j_uri, graph, AUTH_MODE="apikeys", AUTH_API_KEYS_FILE=str(keys)
    ) as client:
        told = {}
        for key in (ACME_KEY, BOTH_KEY, NOTHING_KEY):
            body = await client.execute(GRANTED, headers=bearer(key))
            told[key] = body["data"]["grantedWorkspaces"]
            assert client.statements == [], client.statements
        assert told == {ACME_KEY: ["acme"], BOTH_KEY: ["acme", "globex"], NOTHING_KEY: []}


async def test_each_jwt_is_told_the_workspaces_its_claim_lists(
    neo4j_uri: str, graph: Graph
) -> None:
    async with serving(neo4j_uri, graph, AUTH_MODE="jwt", AUTH_JWT_SECRET=HS_SECRET) as client:
        acme = await client.execute(GRANTED, headers=bearer(hs256(claims(["acme"]))))
        both = await client.execute(
            GRANTED, headers=bearer(hs256(claims(["globex", "acme", "globex"])))
        )
        assert acme["data"] == {"grantedWorkspaces": ["acme"]}
        assert both["data"] == {"grantedWorkspaces": ["acme", "globex"]}
        assert client.statements == []


async def test_auth_mode_none_grants_every_workspace_so_the_answer_is_those_that_hold_a_document(
    neo4j_uri: str, graph: Graph, builder: GraphBuilder
) -> None:
    """Issue 40 §4 ("The scope panel"): a caller granted every workspace is offered the ones it
    could read, in one statement; a workspace whose only document is unfinished, failed or
    deleted holds nothing a reader could see, and is not offered."""
    async with serving(neo4j_uri, graph, AUTH_MODE="none") as client:
        assert (await client.execute(GRANTED))["data"] == {"grantedWorkspaces": []}
        await builder.version("globex", ["Globex makes widgets."], mentions={"Globex": [0]})
        await builder.version("acme", ["Acme sells them."], mentions={"Acme": [0]})
        await builder.version("acme", ["A second Acme document."], mentions={"Acme": [0]})
        await builder.version("unfinished", ["Not yet."], mentions={"Soon": [0]}, commit=False)
        await builder.version("failed", ["Never."], mentions={"Never": [0]}, fail=True)
        deleted = await builder.version("deleted", ["Gone."], mentions={"Gone": [0]})
        begun, _ = await retirement.begin_retirements(graph, [deleted.document_id])
        await retirement.commit_retirements(graph, begun)
        body = await client.execute(GRANTED)
        assert body["data"] == {"grantedWorkspaces": ["acme", "globex"]}
        assert len(client.statements) == 1


async def test_no_credentials_are_unauthenticated_like_every_operation(
    neo4j_uri: str, graph: Graph
) -> None:
    async with serving(neo4j_uri, graph, AUTH_MODE="jwt", AUTH_JWT_SECRET=HS_SECRET) as client:
        response = await client.post(
            GRANTED, headers={"accept": "application/graphql-response+json"}
        )
        assert response.status_code == 401
        error = response.json()["errors"][0]
        assert without_request_ids(error["extensions"]) == {"code": "UNAUTHENTICATED"}
        assert client.statements == []


async def test_it_costs_one_point_and_reads_nothing(neo4j_uri: str, graph: Graph) -> None:
    async with serving(neo4j_uri, graph, AUTH_MODE="jwt", AUTH_JWT_SECRET=HS_SECRET) as client:
        token = bearer(hs256(claims(["acme"])))
        one = await client.execute(GRANTED, headers=token)
        two = await client.execute("{ a: grantedWorkspaces b: grantedWorkspaces }", headers=token)
        assert one["extensions"]["cost"]["requestedQueryCost"] == 1
        assert two["extensions"]["cost"]["requestedQueryCost"] == 2  # each alias is a field
        assert client.statements == []


def generated_grants() -> list[list[str]]:
    """Workspace lists of any names a JWT's claim may hold (non-empty strings, repeats, any
    characters), drawn here and sent by the async test below."""
    grants: list[list[str]] = []

    @settings(max_examples=60, database=None, suppress_health_check=list(HealthCheck))
    @given(st.lists(st.text(min_size=1, max_size=40), max_size=12))
    def collect(workspaces: list[str]) -> None:
        grants.append(workspaces)

    collect()
    return grants


async def test_any_granted_names_come_back_sorted_once_each_as_sent(
    neo4j_uri: str, graph: Graph
) -> None:
    async with serving(neo4j_uri, graph, AUTH_MODE="jwt", AUTH_JWT_SECRET=HS_SECRET) as client:
        for workspaces in generated_grants():
            token = hs256(claims(workspaces))
            body = await client.execute(GRANTED, headers=bearer(token))
            assert body["data"] == {"grantedWorkspaces": sorted(set(workspaces))}, workspaces
        assert client.statements == []
