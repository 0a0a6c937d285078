"""What an import of another tool's output skipped or resolved on its own, counted and put in
words.

Real GraphRAG output has flaws (relationships naming titles no entity bears, titles two
entities share); LangChain graph documents carry types that are not labels as they stand. None
of them stops an import; each kind is counted, so `load` can print the numbers, and reported
once, with a few examples, so a thousand flaws make one line, not a thousand. Each reader names
its kinds and their messages (`MESSAGES` are GraphRAG's).

    >>> tally = Tally()
    >>> tally.add("relationships_unresolved", "ELEVATOR -> X")
    >>> tally.warnings()
    ['1 relationship(s) skipped: the source or target title names no entity (ELEVATOR -> X)']
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field

from contract.relation_claims import MAX_DESCRIPTION_CHARS

EXAMPLES = 3  # named per warning; the rest are counted

# Every kind, in the order warnings are given; each is a key of `GraphRagExport.counts`.
MESSAGES: dict[str, str] = {
    "relationships_unresolved": (
        "{n} relationship(s) skipped: the source or target title names no entity"
    ),
    "title_collisions": (
        "{n} entity(ies) share a title with an earlier entity; relationships naming that title"
        " link the earlier one"
    ),
    "references_dropped": (
        "{n} mention(s) or relationship text unit(s) dropped: they name no text unit of a document"
    ),
    "text_units_without_document": (
        "{n} text unit(s) skipped: they name no document of the documents table"
    ),
    "text_units_in_several_documents": (
        "{n} text unit(s) name several documents; each became a passage of the first of them"
    ),
    "duplicate_ids": "{n} row(s) skipped: they repeat an id read before",
    "rows_without_id": "{n} row(s) skipped: no id (or, for an entity, no title)",
    "labels_renamed": (
        "{n} entity(ies) have a type that would be a graph-owned label; it was given a prefix"
    ),
    "without_document": "{n} entity(ies) or relationship(s) skipped: there is no document",
    "relation_descriptions_dropped": (
        "{n} relationship description(s) dropped: longer than "
        + f"{MAX_DESCRIPTION_CHARS:,} characters (the relationship itself is kept)"
    ),
}


@dataclass
class Tally:
    notes: list[str] = field(default_factory=list)  # one-off warnings, given first
    messages: Mapping[str, str] = field(default_factory=lambda: MESSAGES)  # kind -> message
    _counts: dict[str, int] = field(init=False)
    _examples: dict[str, list[str]] = field(init=False, default_factory=dict)

    def __post_init__(self) -> None:
        self._counts = dict.fromkeys(self.messages, 0)

    def add(self, kind: str, example: str) -> None:
        self._counts[kind] += 1  # a KeyError here is a kind missing from the messages
        examples = self._examples.setdefault(kind, [])
        if len(examples) < EXAMPLES and example not in examples:
            examples.append(example)

    def counts(self) -> dict[str, int]:
        return dict(self._counts)

    def warnings(self) -> list[str]:
        given = list(self.notes)
        for kind, message in self.messages.items():
            if count := self._counts[kind]:
                examples = self._examples[kind]
                more = ", …" if count > len(examples) else ""
                given.append(f"{message.format(n=count)} ({', '.join(examples)}{more})")
        return given
