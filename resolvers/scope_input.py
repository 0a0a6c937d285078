"""`ScopeInput`: which documents a root field may read (narrowing the caller's grant)."""

from __future__ import annotations

import strawberry


@strawberry.input(
    description=(
        "Narrows what a query may read. The effective scope is the workspaces you are granted, "
        "intersected with `workspaces` and with `documentIds` when they are given. Naming a "
        "workspace you are not granted is an error (FORBIDDEN)."
    )
)
class ScopeInput:
    workspaces: list[str] | None = strawberry.field(
        default=None,
        description="Only documents of these workspaces. Omit for every workspace you are granted.",
    )
    document_ids: list[strawberry.ID] | None = strawberry.field(
        default=None,
        description="Only these documents (canonical lowercase UUIDs). Omit for every document.",
    )
