"""How much evidence an answer carries, and how many passages there are in all (issue 39,
points 1, 2 and 5).

- `evidence` (an argument of every tool that cites passages): QUOTES (the default) quotes each
  cited passage once per answer, a window around the mention (mcpserver/quoting.py), and refers
  back to it after that; IDS gives the passage ids only; NONE gives neither (a hit keeps its
  status, an edge its kind). get_passage reads a passage whole.
- Totals: a hit, an entity or an edge shows the first of its visible passages; when it shows as
  many as it may, the rest are counted (up to EVIDENCE_COUNT_CAP, through the loaders: one
  statement for every hit or edge of an answer) so the text says "3 of 14 passages", and
  `evidenceCursor` is get_evidence's cursor for the others.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from functools import lru_cache

from graph.passage_pages import EdgePageRequest, PageRequest
from graph.records import PassageRecord
from graph.walk import WalkEdgeRecord
from loaders import Loaders
from mcpserver.content import (
    DocumentJson,
    EvidenceJson,
    EvidenceTotalJson,
    PassageJson,
    document_json,
)
from mcpserver.evidence_cursor import EdgeOwner, EntityOwner, EvidencePosition, encode
from mcpserver.quoting import window

EVIDENCE_MODES = ("QUOTES", "IDS", "NONE")
EVIDENCE_COUNT_CAP = 100  # passages counted for a total; past it the total is "100+"
QUOTE_CHARS = 240  # one quoted window of a passage in the text


@lru_cache(maxsize=4096)
def _window(text: str, names: tuple[str, ...], width: int) -> tuple[int, int]:
    # The size cut builds an answer several times over; each window is placed once.
    found = window(text, names, width)
    return found.start, found.end


class Citations:
    """The passages one answer cites, each once, with the names it is cited for (its quote's
    window holds as many of them as it can, the first cited weighing most)."""

    def __init__(self, mode: str, width: int = QUOTE_CHARS) -> None:
        self.mode = mode
        self.width = width
        self._passages: dict[str, PassageRecord] = {}
        self._names: dict[str, list[str]] = {}

    def cite(self, passages: Iterable[PassageRecord], names: Sequence[str]) -> list[str]:
        """The ids of `passages`, each cited for `names`."""
        ids = []
        for passage in passages:
            self._passages.setdefault(passage.id, passage)
            wanted = self._names.setdefault(passage.id, [])
            wanted.extend(name for name in names if name and name not in wanted)
            ids.append(passage.id)
        return ids

    def json(self) -> EvidenceJson:
        passages: dict[str, PassageJson] = {}
        documents: dict[str, DocumentJson] = {}
        if self.mode == "NONE":
            return {"passages": passages, "documents": documents}
        for passage_id, passage in self._passages.items():
            entry: PassageJson = {
                "id": passage.id,
                "documentId": passage.document.id,
                "position": passage.position,
                "version": passage.version,
                "length": len(passage.text),
            }
            if self.mode == "QUOTES":
                names = tuple(self._names[passage_id])
                entry["quoteStart"], entry["quoteEnd"] = _window(passage.text, names, self.width)
            passages[passage_id] = entry
            documents.setdefault(passage.document.id, document_json(passage.document))
        return {"passages": passages, "documents": documents}

    def texts(self) -> dict[str, str]:
        """Every cited passage's text, by id: the text rendering quotes from it."""
        return {passage_id: passage.text for passage_id, passage in self._passages.items()}


@dataclass(frozen=True, slots=True)
class Total:
    count: int
    at_least: bool  # the count stopped at EVIDENCE_COUNT_CAP


def _total(counted: int) -> Total:
    if counted > EVIDENCE_COUNT_CAP:
        return Total(EVIDENCE_COUNT_CAP, True)
    return Total(counted, False)


async def entity_totals(
    loaders: Loaders, shown: Mapping[str, Sequence[PassageRecord]], limit: int, supported: set[str]
) -> dict[str, Total]:
    """Each entity's visible passages in all: those shown when fewer than `limit` were (there
    are no more), else counted."""
    counted = [eid for eid in shown if eid in supported and len(shown[eid]) >= limit]
    counts = await loaders.evidence_counts_by_entity_id.load_many(
        [PageRequest(eid, EVIDENCE_COUNT_CAP, None) for eid in counted]
    )
    totals = {eid: Total(len(passages), False) for eid, passages in shown.items()}
    totals.update({eid: _total(count) for eid, count in zip(counted, counts, strict=True)})
    return totals


async def edge_totals(
    loaders: Loaders, edges: Sequence[WalkEdgeRecord], limit: int
) -> dict[str, Total]:
    """Each edge's visible passages in all: its evidence when the walk listed fewer than
    `limit` (the walk's three), else counted."""
    counted = [edge for edge in edges if len(edge.evidence_ids) >= limit]
    counts = await loaders.evidence_counts_by_edge.load_many(
        [
            EdgePageRequest(
                PageRequest(edge.id, EVIDENCE_COUNT_CAP, None),
                edge.source_id,
                edge.target_id,
                edge.type,
            )
            for edge in counted
        ]
    )
    totals = {edge.id: Total(len(edge.evidence_ids), False) for edge in edges}
    totals.update({edge.id: _total(count) for edge, count in zip(counted, counts, strict=True)})
    return totals


def add_evidence(
    target: EvidenceTotalJson,
    mode: str,
    shown: Sequence[PassageRecord],
    total: Total,
    owner: EntityOwner | EdgeOwner,
) -> None:
    """The evidence fields of a hit, an entity or an edge: the ids shown, the total and the
    cursor to the rest (none of them with `evidence` NONE)."""
    if mode == "NONE":
        target["evidenceIds"] = []
        return
    target["evidenceIds"] = [passage.id for passage in shown]
    if not (total.at_least or total.count > len(shown)):
        return  # every passage is shown: the ids are the total
    target["evidenceTotal"] = total.count
    if total.at_least:
        target["evidenceTotalAtLeast"] = True
    if shown:
        last = shown[-1]
        after = (last.document.id, last.position, last.id)
        target["evidenceCursor"] = encode(EvidencePosition(owner, after, len(shown)))
