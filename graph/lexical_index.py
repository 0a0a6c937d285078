"""Each entity label's lexical index: the FULLTEXT index the service creates and expects.

Seed step 2: "The call checks that each label has a full-text index on name". The service's
own index of a label is `entity_name_fulltext_<label>`, over `name` (or `name` and
`description` with RETRIEVAL_LEXICAL_FIELDS=name,description) and the owner key `workspaceKey`
(graph/ownership.py, graph/fulltext_query.py: candidates come from the caller's workspaces),
with the analyzer below.
`evidencegraph schema apply` (and `load`) create it and replace one that differs; searching
still works with any FULLTEXT index on `name` (one without the key reads every workspace's
candidates, as before the key existed), and a difference from what the settings ask for is
reported with the command that fixes it (`mismatch`).

The analyzer: `english`. The query sends plain words only (contract §3), so the index must split a
name where the query does: `english` splits "COVID-19", "F-16", "GPT-4" into their letters
and digits (`classic`, the earlier choice, keeps them as one token no plain word can match)
and drops a possessive 's ("Scrooge's nephew" holds "scrooge"), as `classic` did; it keeps
digits (`simple` drops them). It also stems ("scrooges" and "scrooge" meet), which only widens
the few candidates Lucene returns: the coverage rule and the name rules read the name itself
(graph/entity_search.py). Its stop words ("it", "the", "a", "will") are never indexed, so a
name made only of them is found by the exact-name read, not by this index; the query's own
function words are removed before it is sent (retrieval/lexical_rule.py). Measurements:
docs/retrieval-quality.md.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass

from graph.ownership import OWNER_KEY

ENTITY_ANALYZER = "english"
PASSAGE_ANALYZER = "standard-no-stop-words"  # passage search is not changed by this rule
# What the passage index covers: the text, and the owner key of the passage's document.
PASSAGE_INDEXED: tuple[str, ...] = ("text", OWNER_KEY)

REAPPLY = "run `evidencegraph schema apply`"


def fulltext_index_name(label: str) -> str:
    return f"entity_name_fulltext_{label}"


@dataclass(frozen=True, slots=True)
class LexicalIndexSpec:
    """What a label's lexical index should cover and how it should analyse text."""

    fields: tuple[str, ...] = ("name",)
    analyzer: str = ENTITY_ANALYZER

    def __post_init__(self) -> None:
        # The analyzer's name is written into the index's DDL (graph/graph_schema.py).
        if not re.fullmatch(r"[a-z0-9_-]+", self.analyzer):
            raise ValueError(f"not an analyzer name: {self.analyzer!r}")
        if "name" not in self.fields:
            raise ValueError("the lexical index always covers `name` (seed step 2)")

    @property
    def indexed(self) -> tuple[str, ...]:
        """The properties the index covers: the lexical fields and the owner key."""
        return (*self.fields, OWNER_KEY)

    def matches(self, properties: Sequence[str], analyzer: str | None) -> bool:
        return set(properties) == set(self.indexed) and analyzer == self.analyzer


def mismatch(
    spec: LexicalIndexSpec, label: str, properties: Sequence[str], analyzer: str | None
) -> str | None:
    """What is wrong with the FULLTEXT index a search of `label` uses, for the operator; None
    when it is what the settings ask for (or `analyzer` is unknown and the fields are right).

    >>> mismatch(LexicalIndexSpec(("name", "description")), "Person", ("name", "workspaceKey"),
    ...     "english")
    "RETRIEVAL_LEXICAL_FIELDS=name,description but label Person's FULLTEXT index covers only name: run `evidencegraph schema apply`"
    """  # noqa: E501
    problems = []
    lexical = [field for field in properties if field != OWNER_KEY]
    if set(lexical) != set(spec.fields):
        only = "only " if set(lexical) < set(spec.fields) else ""
        problems.append(
            f"RETRIEVAL_LEXICAL_FIELDS={','.join(spec.fields)} but label {label}'s FULLTEXT"
            f" index covers {only}{','.join(lexical)}"
        )
    # None: read without the index's configuration (a search's lean catalog read); the check
    # at start reads it whole and reports the analyzer.
    if analyzer is not None and analyzer != spec.analyzer:
        problems.append(
            f"label {label}'s FULLTEXT index uses the analyzer {analyzer}, the"
            f" service's is {spec.analyzer}"
        )
    if OWNER_KEY not in properties:
        problems.append(_unkeyed(f"label {label}'s FULLTEXT index"))
    return "; ".join(problems) + f": {REAPPLY}" if problems else None


def _unkeyed(index: str) -> str:
    return (
        f"{index} does not cover {OWNER_KEY}, so its candidates are not confined to the"
        f" caller's workspaces (answers stay right; another workspace's matches take"
        f" candidate slots)"
    )


def unkeyed(index: str) -> str:
    """What an index without the owner key costs, for the operator, with the fix."""
    return f"{_unkeyed(index)}: {REAPPLY}"
