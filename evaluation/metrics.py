"""Recall@k and mean reciprocal rank, over ranked answers to labelled queries. No I/O.

    recall@k  the share of queries with an accepted entity among the first k hits
    MRR       the mean over queries of 1 / (rank of the first accepted hit), 0 when none is
              among the hits read (MRR@10 here: the eval reads ten)

Recall@5 and recall@10 each come from their own search (`limit: 5`, `limit: 10`), as a client
would send them: the search reads `2·limit` candidates per label and the vector index is
approximate, so the first five of a `limit: 10` search need not be the hits of `limit: 5`.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from evaluation.queryset import LabelledQuery


@dataclass(frozen=True, slots=True)
class Hit:
    id: str
    name: str


@dataclass(frozen=True, slots=True)
class Answer:
    """What one retrieval method returned for one query: its hits at limit 5 and at 10."""

    query: LabelledQuery
    top5: tuple[Hit, ...]
    top10: tuple[Hit, ...]
    error: str | None = None  # the method failed on this query (counted as nothing found)


@dataclass(frozen=True, slots=True)
class Scores:
    queries: int
    recall_at_5: float
    recall_at_10: float
    mrr: float
    errors: int = 0

    def as_json(self) -> dict[str, float | int]:
        return {
            "queries": self.queries,
            "recall@5": round(self.recall_at_5, 4),
            "recall@10": round(self.recall_at_10, 4),
            "mrr": round(self.mrr, 4),
            "errors": self.errors,
        }


def first_accepted_rank(query: LabelledQuery, hits: Sequence[Hit]) -> int | None:
    """The 1-based rank of the first hit `query` accepts, None if there is none.

    >>> q = LabelledQuery("who is cruz", ("TAYLOR CRUZ", "CRUZ"), "name")
    >>> first_accepted_rank(q, [Hit("1", "DULCE"), Hit("2", "Cruz")])
    2
    """
    for rank, hit in enumerate(hits, start=1):
        if query.accepts(hit.id, hit.name):
            return rank
    return None


def scores(answers: Sequence[Answer]) -> Scores:
    """The three measures over `answers` (all zero for none).

    >>> q = LabelledQuery("q", ("A",), "name")
    >>> found_second = Answer(q, (Hit("x", "B"), Hit("a", "A")), (Hit("x", "B"), Hit("a", "A")))
    >>> missed_at_5 = Answer(q, (), (Hit("a", "A"),))
    >>> scores([found_second, missed_at_5])
    Scores(queries=2, recall_at_5=0.5, recall_at_10=1.0, mrr=0.75, errors=0)
    """
    if not answers:
        return Scores(0, 0.0, 0.0, 0.0)
    found5 = sum(first_accepted_rank(a.query, a.top5) is not None for a in answers)
    found10 = 0
    reciprocal = 0.0
    for answer in answers:
        rank = first_accepted_rank(answer.query, answer.top10)
        if rank is not None:
            found10 += 1
            reciprocal += 1.0 / rank
    count = len(answers)
    errors = sum(answer.error is not None for answer in answers)
    return Scores(count, found5 / count, found10 / count, reciprocal / count, errors)


def scores_by_kind(answers: Sequence[Answer], kinds: Sequence[str]) -> dict[str, Scores]:
    """Scores for each kind in `kinds`, then for all queries under "all"."""
    by_kind = {kind: scores([a for a in answers if a.query.kind == kind]) for kind in kinds}
    by_kind["all"] = scores(answers)
    return by_kind
