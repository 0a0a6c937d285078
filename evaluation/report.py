"""The eval's result: one row per retrieval method and mode, scored per kind of query; as a
table for the terminal (Markdown, so it pastes into docs as it is) and as JSON."""

from __future__ import annotations

import json
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from evaluation.exact_names import ExactNameRow, exact_name_table
from evaluation.metrics import Answer, Scores, first_accepted_rank, scores_by_kind


@dataclass(frozen=True)
class Row:
    method: str  # a variant of the service, or a peer retriever
    mode: str  # HYBRID, LEXICAL, SEMANTIC; "-" for a peer retriever
    answers: tuple[Answer, ...]
    kinds: tuple[str, ...]

    @property
    def scores(self) -> dict[str, Scores]:
        return scores_by_kind(self.answers, self.kinds)

    def as_json(self) -> dict[str, Any]:
        return {
            "method": self.method,
            "mode": self.mode,
            "scores": {kind: s.as_json() for kind, s in self.scores.items()},
            "queries": [
                {
                    "query": a.query.query,
                    "kind": a.query.kind,
                    "rank": first_accepted_rank(a.query, a.top10),
                    "found@5": first_accepted_rank(a.query, a.top5) is not None,
                    "top5": [hit.name for hit in a.top5],
                    **({"error": a.error} if a.error else {}),
                }
                for a in self.answers
            ],
        }


@dataclass
class Report:
    queryset: str
    data: str
    embedder: str
    kinds: tuple[str, ...]
    rows: list[Row] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)
    exact_names: list[ExactNameRow] = field(default_factory=list)

    def add(self, method: str, mode: str, answers: Sequence[Answer]) -> Row:
        row = Row(method, mode, tuple(answers), self.kinds)
        self.rows.append(row)
        return row

    def table(self) -> str:
        groups = [*self.kinds, "all"]
        counts = {kind: self.rows[0].scores[kind].queries if self.rows else 0 for kind in groups}
        header = ["method", "mode"] + [
            f"{kind} ({counts[kind]}) {measure}"
            for kind in groups
            for measure in ("R@5", "R@10", "MRR")
        ]
        lines = [_markdown_row(header), _markdown_row(["---"] * len(header))]
        for row in self.rows:
            cells = [row.method, row.mode]
            for kind in groups:
                s = row.scores[kind]
                cells += [f"{s.recall_at_5:.2f}", f"{s.recall_at_10:.2f}", f"{s.mrr:.2f}"]
            errors = row.scores["all"].errors
            if errors:
                cells[0] += f" ({errors} errors)"
            lines.append(_markdown_row(cells))
        return "\n".join(lines)

    def text(self) -> str:
        title = f"{self.queryset}: {self.rows[0].scores['all'].queries if self.rows else 0}"
        title += f" queries over {self.data}, {self.embedder}"
        parts = [title, "", self.table(), *[f"- {note}" for note in self.notes]]
        if self.exact_names:
            parts += ["", "Exact name first (each distinct entity name as the query):", ""]
            parts.append(exact_name_table(self.exact_names))
        return "\n".join(parts)

    def as_json(self) -> dict[str, Any]:
        return {
            "queryset": self.queryset,
            "data": self.data,
            "embedder": self.embedder,
            "kinds": list(self.kinds),
            "notes": self.notes,
            "rows": [row.as_json() for row in self.rows],
            "exactNames": [row.as_json() for row in self.exact_names],
        }


def _markdown_row(cells: Sequence[str]) -> str:
    return "| " + " | ".join(cells) + " |"


def write_json(reports: Sequence[Report], path: Path) -> None:
    document = {"reports": [report.as_json() for report in reports]}
    path.write_text(json.dumps(document, indent=2, ensure_ascii=False) + "\n", encoding="utf-8")
