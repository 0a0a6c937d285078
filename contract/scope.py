"""Effective scope (contract §1): the documents one request field may read.

Effective scope = the workspaces the caller is granted ∩ `scope.workspaces` (if given)
∩ `scope.documentIds` (if given). A caller granted every workspace (`AUTH_MODE=none`) has no
workspace filter unless the request names one.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field

from contract.errors import Forbidden, Malformed
from contract.identifiers import is_canonical_uuid

MAX_SCOPE_WORKSPACES = 100
MAX_SCOPE_DOCUMENT_IDS = 1000


@dataclass(frozen=True, slots=True)
class Grant:
    """What authentication granted: a set of workspaces, or every workspace."""

    workspaces: frozenset[str] | None  # None: every workspace (AUTH_MODE=none)
    # Who the caller is, for its rate limit (api/front_door/rate_limit.py): an API key's digest or a
    # JWT's subject, never a credential; None: the one shared identity of AUTH_MODE=none. Two
    # grants of the same workspaces are equal whoever holds them.
    subject: str | None = field(default=None, compare=False)

    @classmethod
    def everything(cls) -> Grant:
        return cls(None)

    @classmethod
    def of(cls, workspaces: Sequence[str], subject: str | None = None) -> Grant:
        return cls(frozenset(workspaces), subject)

    def allows(self, workspace: str) -> bool:
        return self.workspaces is None or workspace in self.workspaces

    def listed(self) -> list[str] | None:
        """The granted workspaces, sorted, as `grantedWorkspaces` answers; None for every one.

        >>> Grant.of(["b", "a"]).listed(), Grant.everything().listed()
        (['a', 'b'], None)
        """
        return None if self.workspaces is None else sorted(self.workspaces)


@dataclass(frozen=True, slots=True)
class Scope:
    """The effective scope; hashable, so per-request loaders can be keyed by it."""

    workspaces: tuple[str, ...] | None  # None: no workspace filter
    document_ids: tuple[str, ...] | None = None  # None: no document filter

    def cypher_parameters(self) -> dict[str, list[str] | None]:
        """The parameters every visibility fragment reads (see graph/visibility.py)."""
        return {
            "scopeWorkspaces": None if self.workspaces is None else list(self.workspaces),
            "scopeDocumentIds": None if self.document_ids is None else list(self.document_ids),
        }


def effective_scope(
    grant: Grant,
    workspaces: Sequence[str] | None = None,
    document_ids: Sequence[str] | None = None,
) -> Scope:
    """Intersect the grant with what the request asks for.

    Naming a workspace the caller is not granted is `FORBIDDEN` rather than silently
    narrowed, so a client learns that its request cannot be served as written.

    >>> effective_scope(Grant.of(["a", "b"]), ["b"]).workspaces
    ('b',)
    """
    if workspaces is not None:
        if len(workspaces) > MAX_SCOPE_WORKSPACES:
            raise Malformed("scope.workspaces", f"at most {MAX_SCOPE_WORKSPACES} workspaces")
        refused = sorted({w for w in workspaces if not grant.allows(w)})
        if refused:
            raise Forbidden(
                "scope.workspaces names workspaces you are not granted: " + ", ".join(refused),
                workspaces=refused,
            )
        chosen: tuple[str, ...] | None = tuple(sorted(set(workspaces)))
    else:
        chosen = None if grant.workspaces is None else tuple(sorted(grant.workspaces))

    documents: tuple[str, ...] | None = None
    if document_ids is not None:
        if len(document_ids) > MAX_SCOPE_DOCUMENT_IDS:
            raise Malformed("scope.documentIds", f"at most {MAX_SCOPE_DOCUMENT_IDS} ids")
        for document_id in document_ids:
            if not is_canonical_uuid(document_id):
                raise Malformed("scope.documentIds", "each id must be a canonical lowercase UUID")
        documents = tuple(sorted(set(document_ids)))
    return Scope(chosen, documents)
