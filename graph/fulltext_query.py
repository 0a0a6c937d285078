"""The Lucene query a lexical read sends to a FULLTEXT index (issue 25 §2, contract §2
"Ownership" and §3): the query's words on the fields they may match, and, where the index
covers the owner key (graph/ownership.py), only the caller's workspaces' nodes and unowned ones.

    words     plain lowercase words (contract §3: no Lucene operator ever comes from a request),
              sent on the fields named (`name:(…)`), so a word never matches a workspace key
    owners    `workspaceKey:(k1 k2 …)` OR no `workspaceKey` at all (`*:* -workspaceKey:[* TO *]`,
              the classic query parser's "field absent"): an unowned node stays a candidate for
              every caller; the keys are digits the service makes
    weight    the owner clause is boosted by 0, so it filters without scoring: a candidate's
              score is the words' BM25 score alone, as it was before the key was indexed

Lucene applies the owner clause inside the index, before its top-k cut, so another workspace's
nodes never take one of the `min(2·limit, 1000)` candidate slots (seed step 3). Without the key
field in the index, or without a workspace filter in the scope (a caller granted every
workspace, naming none), the query holds the words alone and reads every workspace, as before:
visibility is decided by the scope afterwards all the same (graph/visibility.py).

>>> fulltext_query("acme corp", ("name",), None)
'name:(acme corp)'
>>> print(fulltext_query("acme", ("name", "description"), ("0001", "0002")))
(name:(acme) description:(acme)) AND (workspaceKey:(0001 0002) OR (*:* -workspaceKey:[* TO *]))^0
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from contract.scope import Scope
from graph.ownership import OWNER_KEY, workspace_key

# Only these reach the query text: field names the service chose, plain words, digit keys.
_FIELD = re.compile(r"[A-Za-z][A-Za-z0-9_]*")
_KEY = re.compile(r"[0-9]+")
_UNOWNED = f"(*:* -{OWNER_KEY}:[* TO *])"


def fulltext_query(words: str, fields: Sequence[str], keys: Sequence[str] | None) -> str:
    """`words` on `fields`, confined to the nodes owned by `keys` or by nobody; `keys` None
    reads every workspace. `words` is a query's lexical form (plain words and spaces), or a
    "did you mean"'s fuzzy terms (plain words, each perhaps with `~1` or `~2`:
    retrieval/fuzzy_words.py)."""
    if not fields or not all(_FIELD.fullmatch(field) for field in fields):
        raise ValueError(f"not field names: {fields!r}")
    on_fields = " ".join(f"{field}:({words})" for field in fields)
    matched = on_fields if len(fields) == 1 else f"({on_fields})"
    if keys is None:
        return matched
    return f"{matched} AND {owners_query(keys)}^0"


def owners_query(keys: Sequence[str]) -> str:
    """The nodes owned by `keys` (workspace keys) or by nobody, as a Lucene query; alone, it
    reads an index's nodes of the caller's workspaces without words (graph/scope_labels.py).

    >>> owners_query(("0001",))
    '(workspaceKey:(0001) OR (*:* -workspaceKey:[* TO *]))'
    """
    if not all(_KEY.fullmatch(key) for key in keys):
        raise ValueError("a workspace key is made of digits")
    return f"({OWNER_KEY}:({' '.join(keys)}) OR {_UNOWNED})" if keys else _UNOWNED


def scope_keys(scope: Scope) -> tuple[str, ...] | None:
    """The owner keys a scope's lexical reads may take candidates from; None: every workspace
    (the scope has no workspace filter)."""
    if scope.workspaces is None:
        return None
    return tuple(workspace_key(workspace) for workspace in scope.workspaces)
