"""The `Query` root (contract §6): each field a short delegate."""

from __future__ import annotations

from typing import Annotated

import strawberry

from answers.granted_workspaces import granted_workspaces
from contract.arguments import SEARCH_LIMIT, SUGGESTION_LIMIT, SUPPORT_LIMIT, check_id
from resolvers import entity_search, name_suggestions, passage_search
from resolvers.context import Info
from resolvers.entity import Entity
from resolvers.entity_hit import EntityHit
from resolvers.entity_label import EntityLabel, entity_labels
from resolvers.enums import SearchMode
from resolvers.federation import FederationQuery
from resolvers.passage import Passage
from resolvers.passage_hit import PassageHit
from resolvers.scope_input import ScopeInput
from resolvers.walk import WalkResult, walk

ScopeArgument = Annotated[
    ScopeInput | None,
    strawberry.argument(description="Narrows what the query may read; omit for your whole grant."),
]


QueryArgument = Annotated[
    str,
    strawberry.argument(
        description=(
            "What to look for: a name or a description. The lexical search uses only its "
            "plain words (letters and digits, lowercased), so search syntax has no effect."
        )
    ),
]
LabelsArgument = Annotated[
    list[str] | None,
    strawberry.argument(description="Only these entity labels (see `entityLabels`); omit for all."),
]
ModeArgument = Annotated[
    SearchMode, strawberry.argument(description="How to rank: HYBRID (default), LEXICAL, SEMANTIC.")
]


@strawberry.type(description="Entity search, passage search and relationship walks, with evidence.")
class Query(FederationQuery):
    @strawberry.field(
        description=(
            "Find entities by name and by meaning. Returns at most `limit` entities that a "
            "passage in scope mentions, best first, each with up to `supportLimit` visible "
            "passages as evidence."
        )
    )
    async def search_entities(
        self,
        info: Info,
        query: QueryArgument,
        scope: ScopeArgument = None,
        labels: LabelsArgument = None,
        mode: ModeArgument = SearchMode.HYBRID,
        limit: Annotated[
            int, strawberry.argument(description=SEARCH_LIMIT.description)
        ] = SEARCH_LIMIT.default,
        support_limit: Annotated[
            int, strawberry.argument(description=SUPPORT_LIMIT.description)
        ] = SUPPORT_LIMIT.default,
    ) -> list[EntityHit]:
        return await entity_search.search_entities(
            info, query, scope, labels, mode, limit, support_limit
        )

    @strawberry.field(
        description=(
            'Names for a "did you mean": the names of entities a passage in scope mentions '
            "that hold a word within a few typing mistakes of one of the query's words "
            "(Lucene's fuzzy match on each searched label's name index: words of 3 to 5 "
            "characters within one edit, longer ones within two; shorter words and numbers as "
            "written; function words left out), each name once, the closest first: nearest to "
            "more of the query's words, then with fewer other words. It does not "
            "change `searchEntities`, whose lexical rule stays as written: offer these beside "
            "its answer. Empty when the query has no word to be close to."
        )
    )
    async def name_suggestions(
        self,
        info: Info,
        query: QueryArgument,
        scope: ScopeArgument = None,
        labels: LabelsArgument = None,
        limit: Annotated[
            int, strawberry.argument(description=SUGGESTION_LIMIT.description)
        ] = SUGGESTION_LIMIT.default,
    ) -> list[str]:
        return await name_suggestions.name_suggestions(info, query, scope, labels, limit)

    @strawberry.field(
        description=(
            "Find visible passages by their words and by meaning. Returns at most `limit` "
            "passages, best first."
        )
    )
    async def search_passages(
        self,
        info: Info,
        query: QueryArgument,
        scope: ScopeArgument = None,
        mode: ModeArgument = SearchMode.HYBRID,
        limit: Annotated[
            int, strawberry.argument(description=SEARCH_LIMIT.description)
        ] = SEARCH_LIMIT.default,
    ) -> list[PassageHit]:
        return await passage_search.search_passages(info, query, scope, mode, limit)

    @strawberry.field(
        description=(
            "The entity with this id, or null unless a passage in scope mentions it "
            "(a hidden entity looks exactly like a missing one)."
        )
    )
    async def entity(
        self,
        info: Info,
        id: Annotated[strawberry.ID, strawberry.argument(description="Canonical lowercase UUID.")],
        scope: ScopeArgument = None,
    ) -> Entity | None:
        check_id("id", id)
        effective = info.context.scope(scope)
        record = await info.context.loaders(effective).entities_by_id.load(id)
        return Entity.from_record(record, effective) if record else None

    @strawberry.field(
        description=(
            "The passage with this id, or null unless it is visible in scope "
            "(a hidden passage looks exactly like a missing one)."
        )
    )
    async def passage(
        self,
        info: Info,
        id: Annotated[strawberry.ID, strawberry.argument(description="Canonical lowercase UUID.")],
        scope: ScopeArgument = None,
    ) -> Passage | None:
        check_id("id", id)
        effective = info.context.scope(scope)
        record = await info.context.loaders(effective).passages_by_id.load(id)
        return Passage.from_record(record, effective) if record else None

    @strawberry.field(
        description=(
            "Every entity label (a label with a vector index) under which a passage your "
            "credentials grant mentions an entity, with its two index states."
        )
    )
    async def entity_labels(self, info: Info) -> list[EntityLabel]:
        return await entity_labels(info)

    @strawberry.field(
        description=(
            "The workspaces your credentials grant, sorted: the choices a `scope.workspaces` "
            "may name, read from the credentials alone. When they grant every workspace "
            "(AUTH_MODE=none): the workspaces that hold a document you could read (one read). "
            "Never null; nullable for the clients written when it was null under AUTH_MODE=none."
        )
    )
    async def granted_workspaces(self, info: Info) -> list[str] | None:
        return await granted_workspaces(info.context.answers, info.context.caller_grant())

    walk: WalkResult = strawberry.field(
        resolver=walk,
        description=(
            "Walks the stored relations around one entity, out to depth 1 or 2, in both "
            "directions. Each edge is an ASSERTION (a visible passage states it; see its "
            "evidence) or a PATH (no supporting passage). Bounds cap the answer, and "
            "`truncatedBy` names every bound that cut it. Errors: MALFORMED for an invalid "
            "argument, UNAVAILABLE when the start is missing or has no visible passage in scope."
        ),
    )
