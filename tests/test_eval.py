"""`evidencegraph eval` (evaluation/): the query sets are sound, the measures are computed right,
and a small set runs end to end through the command, the loader and the served schema."""

from __future__ import annotations

import json
from pathlib import Path

import pyarrow.parquet as pq
import pytest

from evaluation.exact_names import distinct_names, exact_name_row
from evaluation.metrics import Answer, Hit, scores, scores_by_kind
from evaluation.queryset import (
    BUILT_IN,
    LabelledQuery,
    QuerySetError,
    built_in,
    parse_line,
    read_queryset,
)
from evaluation.variants import BY_NAME, STANDARD, chosen
from graph.driver import Graph
from tests.support.load_helpers import Cli

DULCE = Path(__file__).resolve().parents[1] / "data" / "graphrag-operation-dulce"


def titles(data: Path) -> set[str]:
    if data.is_file():  # a bundle
        lines = data.read_text(encoding="utf-8").splitlines()
        return {e["name"] for line in lines if line.strip() for e in json.loads(line)["entities"]}
    return {str(title) for title in pq.read_table(data / "entities.parquet")["title"].to_pylist()}


@pytest.mark.parametrize("name", sorted(BUILT_IN))
def test_every_answer_a_built_in_set_accepts_is_an_entity_of_its_data(name: str) -> None:
    queryset = built_in(name)
    assert queryset.data is not None
    known = titles(queryset.data)
    for query in queryset.queries:
        assert set(query.accept) <= known, (query.query, set(query.accept) - known)


def test_the_dulce_set_has_forty_queries_or_more_about_half_of_each_kind() -> None:
    queries = built_in("dulce").queries
    assert len(queries) >= 40
    by_name = sum(q.kind == "name" for q in queries)
    assert 0.4 <= by_name / len(queries) <= 0.6
    assert len({q.query for q in queries}) == len(queries)  # no query twice


def test_a_bad_line_is_refused_with_its_file_and_line(tmp_path: Path) -> None:
    good = '{"query": "q", "accept": ["A"], "kind": "name"}'
    for bad, reason in (
        ("{", "not JSON"),
        ('{"query": "", "accept": ["A"], "kind": "name"}', "`query`"),
        ('{"query": "q", "accept": [], "kind": "name"}', "`accept`"),
        ('{"query": "q", "accept": ["A"], "kind": "title"}', "`kind`"),
        ('{"query": "q", "accept": ["A"], "kind": "name", "note": 1}', "unknown keys note"),
    ):
        path = tmp_path / "set.jsonl"
        path.write_text(f"{good}\n\n{bad}\n", encoding="utf-8")
        with pytest.raises(QuerySetError, match=rf"set.jsonl:3: .*{reason}"):
            read_queryset(path)


def test_an_answer_is_accepted_by_name_in_any_case_or_by_id() -> None:
    query = parse_line('{"query": "q", "accept": ["Taylor Cruz", "0f"], "kind": "name"}', "x")
    assert query.accepts("1", "TAYLOR CRUZ") and query.accepts("0F", "someone else")
    assert not query.accepts("1", "Taylor")


def test_recall_and_mrr_by_hand() -> None:
    """Four queries; the first accepted hit at ranks 1, 3 and 7, and none (the last)."""
    a, b = LabelledQuery("a", ("A",), "name"), LabelledQuery("b", ("B",), "description")
    other = [Hit(str(i), f"other {i}") for i in range(10)]
    at = [Answer(a, (Hit("a", "A"),), (Hit("a", "A"),))]
    at.append(Answer(a, (*other[:2], Hit("a", "A")), (*other[:2], Hit("a", "A"))))
    at.append(Answer(b, tuple(other[:5]), (*other[:6], Hit("b", "b"), *other[6:9])))
    at.append(Answer(b, tuple(other[:5]), tuple(other), error="refused"))
    total = scores(at)
    assert (total.recall_at_5, total.recall_at_10) == (0.5, 0.75)
    assert total.mrr == pytest.approx((1 + 1 / 3 + 1 / 7 + 0) / 4)
    assert total.errors == 1
    kinds = scores_by_kind(at, ["name", "description"])
    assert kinds["name"].recall_at_5 == 1.0 and kinds["name"].mrr == pytest.approx(2 / 3)
    assert kinds["description"].recall_at_5 == 0.0
    assert kinds["description"].recall_at_10 == 0.5
    assert kinds["all"] == total


def test_distinct_names_are_each_name_once_in_any_case_and_searchable() -> None:
    assert distinct_names(["Scrooge", "SCROOGE", "?!", "Scrooge's", "It"]) == [
        "Scrooge",
        "Scrooge's",
        "It",
    ]


async def test_a_name_counts_when_its_first_hit_is_an_entity_of_that_name() -> None:
    class Answers:
        async def hits(self, query: str, mode: str, limit: int) -> tuple[Hit, ...]:
            first = {"scrooge": "SCROOGE'S", "marley": "JACOB MARLEY", "it": None}[query]
            return () if first is None else (Hit("1", first), Hit("2", query.upper()))

    row = await exact_name_row(Answers(), "default", "LEXICAL", ["scrooge", "marley", "it"])  # type: ignore[arg-type]
    assert (row.names, row.share) == (3, 1 / 3)
    assert [(m.name, m.first) for m in row.misses] == [("marley", "JACOB MARLEY"), ("it", None)]


def test_variant_names_are_chosen_by_name_or_group() -> None:
    assert [v.name for v in chosen("standard")] == list(STANDARD)
    assert [v.name for v in chosen("all")] == list(BY_NAME)
    assert [v.name for v in chosen("seed, default,seed")] == ["seed", "default"]
    with pytest.raises(ValueError, match="unknown variant"):
        chosen("best")


# Hand-checkable in LEXICAL mode: BM25 ranks the one-word name CRUZ before TAYLOR CRUZ, and the
# descriptive query holds one word of three in any name ("facility", "underground"), too few.
TINY = [
    {"query": "Who is Alex Mercer?", "accept": ["ALEX MERCER"], "kind": "name"},
    {"query": "cruz", "accept": ["TAYLOR CRUZ"], "kind": "name"},
    {"query": "the secret underground facility", "accept": ["DULCE BASE"], "kind": "description"},
]


async def test_a_small_set_runs_end_to_end_through_the_command(
    cli: Cli, graph: Graph, tmp_path: Path
) -> None:
    queries = tmp_path / "tiny.jsonl"
    queries.write_text("\n".join(json.dumps(q) for q in TINY) + "\n", encoding="utf-8")
    out = tmp_path / "tiny.json"
    arguments = ["eval", "--queries", str(queries), "--data", str(DULCE), "--variants", "default"]
    arguments += ["--modes", "LEXICAL,HYBRID", "--json", str(out), "--neo4j-uri", cli.neo4j_uri]
    run = await cli.run(*arguments, EMBEDDER="minilm", EMBEDDER_DIM="")
    assert run.code == 0, run.err
    assert "| default | LEXICAL | 1.00 | 1.00 | 0.75 | 0.00 | 0.00 | 0.00 | 0.67 |" in run.out
    [report] = json.loads(out.read_text(encoding="utf-8"))["reports"]
    rows = {row["mode"]: row for row in report["rows"]}
    lexical = rows["LEXICAL"]
    assert [q["rank"] for q in lexical["queries"]] == [1, 2, None]
    assert lexical["queries"][1]["top5"][:2] == ["CRUZ", "TAYLOR CRUZ"]
    assert lexical["queries"][2]["top5"] == []
    assert lexical["scores"]["all"] == {
        "queries": 3,
        "recall@5": 0.6667,
        "recall@10": 0.6667,
        "mrr": 0.5,
        "errors": 0,
    }
    # HYBRID reads the real MiniLM vectors as well: the name still comes first.
    assert rows["HYBRID"]["queries"][0]["rank"] == 1
    # The data went through `load` into the set's workspace; the indexes are the settings'.
    [workspace] = await graph.read("MATCH (d:Document) RETURN collect(d.workspace) AS w", {})
    assert workspace["w"] == ["tiny"]
