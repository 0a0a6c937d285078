"""Shared by the `load` tests: bundle lines by name, the CLI run in a thread, graph counts."""

from __future__ import annotations

import asyncio
import json
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

from commands.main import main
from embedding.hashing import HashEmbedder
from embedding.query_cache import QueryEmbedder
from graph.driver import Graph
from ingest.bundle import parse_line
from ingest.document_version import DocumentVersion
from ingest.loader import Loader
from tests.conftest import TEST_DIMENSION


def uid(kind: str, n: int) -> str:
    """A canonical UUID per (kind, n), readable in failures: d=document, p=passage, ..."""
    digit = {"d": 1, "p": 2, "e": 3, "r": 4}[kind]
    return f"00000000-0000-4000-800{digit}-{n:012x}"


def bundle_line(
    document: int,
    passages: Sequence[tuple[int, str]],
    *,
    workspace: str = "acme",
    entities: Sequence[dict[str, Any]] = (),
    relations: Sequence[dict[str, Any]] = (),
) -> dict[str, Any]:
    """One bundle line; passages are (number, text), at positions 0, 1, …"""
    return {
        "document": {"id": uid("d", document), "workspace": workspace, "title": f"doc {document}"},
        "passages": [
            {"id": uid("p", number), "position": position, "text": text}
            for position, (number, text) in enumerate(passages)
        ],
        "entities": list(entities),
        "relations": list(relations),
    }


def entity(
    number: int, name: str, mentions: Sequence[int], label: str = "Person"
) -> dict[str, Any]:
    return {
        "id": uid("e", number),
        "labels": [label],
        "name": name,
        "mentions": [uid("p", m) for m in mentions],
    }


def relation(
    number: int, source: int, target: int, support: Sequence[int], kind: str = "KNOWS"
) -> dict[str, Any]:
    return {
        "id": uid("r", number),
        "type": kind,
        "source": uid("e", source),
        "target": uid("e", target),
        "passageIds": [uid("p", p) for p in support],
    }


def version_of(line: dict[str, Any]) -> DocumentVersion:
    """A valid bundle line, read as `load` reads it."""
    parsed = parse_line(json.dumps(line), dimensions=TEST_DIMENSION)
    assert isinstance(parsed, DocumentVersion), parsed
    return parsed


def loader(graph: Graph) -> Loader:
    """A loader with the test embedder, as `load` has one per file."""
    return Loader(graph, QueryEmbedder(HashEmbedder(TEST_DIMENSION), size=0))


def write_bundle(path: Path, lines: Sequence[dict[str, Any] | str]) -> Path:
    """Lines as JSON (a str is written as is: a deliberately broken line)."""
    text = "\n".join(line if isinstance(line, str) else json.dumps(line) for line in lines)
    path.write_text(text + "\n", encoding="utf-8")
    return path


@dataclass
class Run:
    code: int
    out: str
    err: str


@dataclass
class Cli:
    """`evidencegraph …` as a user runs it (its own event loop, in a thread), with the test
    embedder unless told otherwise; stdout and stderr are not terminals."""

    monkeypatch: pytest.MonkeyPatch
    capsys: pytest.CaptureFixture[str]
    neo4j_uri: str

    async def run(self, *arguments: str, **environment: str) -> Run:
        settings = {
            "NEO4J_URI": self.neo4j_uri,
            "EMBEDDER": "hash",
            "EMBEDDER_DIM": str(TEST_DIMENSION),
        }
        for key, value in {**settings, **environment}.items():
            self.monkeypatch.setenv(key, value)
        self.capsys.readouterr()
        code = await asyncio.to_thread(main, list(arguments))
        captured = self.capsys.readouterr()
        return Run(code, captured.out, captured.err)


COUNT_LABELS = "MATCH (n) UNWIND labels(n) AS label RETURN label, count(*) AS n ORDER BY label"
COUNT_TYPES = "MATCH ()-[r]->() RETURN type(r) AS type, count(*) AS n ORDER BY type"


async def graph_counts(graph: Graph) -> dict[str, int]:
    """Nodes per label and relationships per type (`:Label`, `-TYPE-`)."""
    counts = {f":{row['label']}": row["n"] for row in await graph.read(COUNT_LABELS, {})}
    counts |= {f"-{row['type']}-": row["n"] for row in await graph.read(COUNT_TYPES, {})}
    return counts
