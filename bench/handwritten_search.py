"""The floor: hybrid entity search (contract §3) as ONE hand-written Cypher statement.

Written from contract §1–§3 and the lexical rules of docs/retrieval-quality.md alone, not from
graph/entity_search.py, so the two can check each other (`bench/floor_agreement.py` compares
their answers). What a careful engineer who knows the graph would send:
- every entity label's FULLTEXT (name) and VECTOR (embedding) index, their names read once
  when the client starts (not per request: a floor, not a service);
- the query's content words (its plain lowercase words after dropping a possessive 's, split
  where letters meet digits, without function words and one-letter fragments; digits stay)
  to the FULLTEXT index, with letter-digit runs also sent joined ("covid 19" → covid19);
- each label reads `k = min(2·limit, 1000)` candidates per index; an entity found by several
  labels keeps its best score per list;
- on those candidates only, with regexes built in Python (nothing scans a label): the exact
  name (the query equals the name ignoring case, punctuation and a possessive 's) and how
  many of the distinct content words the name holds (whole words, a possessive allowed); a
  candidate is a lexical hit if it holds at least half of them, or if it is an exact name;
- only returnable candidates (an in-scope passage mentions them, of a version its document
  has reached, written by no unfinished job — contract §2 keeps everything else a job wrote
  invisible — and of a document that is not retired: its `currentVersion` is not in
  `retiredVersions`, contract §1 "deleted") are ranked, so ranks are positions among what the
  caller may see;
- the lexical list in the order of contract §3 ("Names find their entities", "Two ranked
  lists across labels"): exact names first, then completeness (the Jaccard index of the
  query's and the name's content words, the name's split in Cypher on the few hits), then
  the index's score, then entity id;
- the semantic list by cosine similarity, ties by id; a label's semantic read is repeated at
  the cap when it came back full and fewer than `limit` of it are returnable;
- HYBRID: exact names first, then RRF with k = 60, ties by id; evidence: up to
  `supportLimit` visible passages (in scope, current version, written by no unfinished job),
  by document id then position, with text and title. A retired document has no current
  passage (its current version is the retirement, which has none), so evidence needs no test
  of its own for it.
Left out, as the benchmark never needs it: a query with no content word ("The Who", "It";
bench/vocabulary.py makes none) reads no FULLTEXT index and gets no lexical list here, where
the service looks for the names such a query equals.
"""

from __future__ import annotations

import itertools
import math
import re
import string
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any, LiteralString

import neo4j

from embedding.hashing import HashEmbedder
from retrieval.stop_words import STOP_WORDS

IN_SCOPE: LiteralString = (
    "($workspaces IS NULL OR d.workspace IN $workspaces)"
    " AND ($documentIds IS NULL OR d.id IN $documentIds)"
)
RETURNABLE: LiteralString = (
    "EXISTS { (node)-[:MENTIONED_IN]->(c:Chunk)<-[:HAS_PART]-(d:Document)"
    " WHERE " + IN_SCOPE + " AND c.version <= d.currentVersion"
    " AND NOT d.currentVersion IN coalesce(d.retiredVersions, [])"
    " AND (c.jobId IS NULL OR EXISTS { MATCH (job:Job {id: c.jobId})"
    " WHERE job.status = 'COMMITTED' }) }"
)

# The letter runs and digit runs of `token`, which mixes them ("x100", "r2") or holds a
# character $separators does not list (which then separates): each character looked at, so
# only for the tokens that are not a plain run of letters or of digits.
_ATOMS_OF_TOKEN: LiteralString = (
    "reduce(run = {atoms: [], kind: ''},"
    "  character IN [i IN range(0, size(token) - 1) | substring(token, i, 1)] |"
    "  CASE WHEN character =~ '\\\\p{L}' OR character =~ '\\\\p{N}' THEN"
    "   CASE WHEN (character =~ '\\\\p{L}') = (run.kind = 'L') AND run.kind <> ''"
    "    THEN {atoms: run.atoms[..-1] + (last(run.atoms) + character), kind: run.kind}"
    "    ELSE {atoms: run.atoms + character,"
    "     kind: CASE WHEN character =~ '\\\\p{L}' THEN 'L' ELSE 'N' END} END"
    "  ELSE {atoms: run.atoms, kind: ''} END).atoms"
)

# How many distinct content words `name` (lowercased) holds: its runs of letters and of
# digits, without function words and one-letter fragments (digits stay).
NAME_WORD_COUNT: LiteralString = (
    "size(reduce(distinct = [], atom IN reduce(atoms = [], token IN split(name, $separators) |"
    "  atoms + CASE WHEN token =~ '\\\\p{L}*' OR token =~ '\\\\p{N}+' THEN [token]"
    "   ELSE " + _ATOMS_OF_TOKEN + " END) |"
    " CASE WHEN (size(atom) > 1 OR atom =~ '\\\\p{N}+') AND NOT atom IN $functionWords"
    "  AND NOT atom IN distinct THEN distinct + atom ELSE distinct END))"
)

SEARCH: LiteralString = (
    "CALL () {"
    " UNWIND $fulltextIndexes AS index"
    " CALL db.index.fulltext.queryNodes(index, $words, {limit: $k}) YIELD node, score"
    " WITH node, max(score) AS score"
    " WITH node, score, toLower(node.name) AS name"
    " WITH node, score, name, coalesce(name =~ $exactPattern, false) AS exact,"
    "  size([pattern IN $wordPatterns WHERE name =~ pattern]) AS held"
    " WHERE (exact OR held >= $required) AND "
    + RETURNABLE
    + " WITH node, score, exact, held, "
    + NAME_WORD_COUNT
    + " AS nameWords"
    # The union of the two word sets holds every query word, and the name's words that are
    # not among those it holds.
    " WITH node, score, exact,"
    "  held * 1.0 / ($queryWords + CASE WHEN nameWords > held THEN nameWords - held ELSE 0 END)"
    "  AS completeness"
    " ORDER BY exact DESC, completeness DESC, score DESC, node.id"
    " RETURN collect({node: node, exact: exact}) AS lexical"
    "}"
    " CALL () {"
    " UNWIND $vectorIndexes AS index"
    " CALL (index) {"
    "  CALL db.index.vector.queryNodes(index, $k, $vector) YIELD node, score"
    "  WITH node, score, " + RETURNABLE + " AS returnable"
    "  RETURN count(*) AS read,"
    "   collect(CASE WHEN returnable THEN {node: node, score: score} END) AS first"
    " }"
    " WITH index, first, read = $k AND size(first) < $limit AND $capK > $k AS again"
    " CALL (index, again) {"
    "  WITH index WHERE again"
    "  CALL db.index.vector.queryNodes(index, $capK, $vector) YIELD node, score"
    "  WITH node, score WHERE "
    + RETURNABLE
    + "  RETURN collect({node: node, score: score}) AS atCap"
    " }"
    " UNWIND CASE WHEN again THEN atCap ELSE first END AS hit"
    " WITH hit.node AS node, max(hit.score) AS score"
    " WITH node ORDER BY score DESC, node.id"
    " RETURN collect(node) AS semantic"
    "}"
    " CALL (lexical, semantic) {"
    " UNWIND range(1, size(lexical)) AS rank"
    " RETURN lexical[rank - 1].node AS node, rank AS lexicalRank, null AS semanticRank,"
    "  lexical[rank - 1].exact AS exact"
    " UNION ALL"
    " UNWIND range(1, size(semantic)) AS rank"
    " RETURN semantic[rank - 1] AS node, null AS lexicalRank, rank AS semanticRank,"
    "  false AS exact"
    "}"
    " WITH node, min(lexicalRank) AS lexicalRank, min(semanticRank) AS semanticRank,"
    " any(isExact IN collect(exact) WHERE isExact) AS exact"
    " WITH node, lexicalRank, semanticRank, exact,"
    " coalesce(1.0 / ($rrfK + lexicalRank), 0.0) + coalesce(1.0 / ($rrfK + semanticRank), 0.0)"
    "  AS score"
    " ORDER BY exact DESC, score DESC, node.id LIMIT $limit"
    " CALL (node) {"
    " MATCH (node)-[:MENTIONED_IN]->(c:Chunk)<-[:HAS_PART]-(d:Document)"
    " WHERE " + IN_SCOPE + " AND c.version = d.currentVersion"
    "  AND (c.jobId IS NULL OR EXISTS { MATCH (job:Job {id: c.jobId})"
    "   WHERE job.status = 'COMMITTED' })"
    " WITH c, d ORDER BY d.id, c.position, c.id LIMIT $evidenceK"
    " RETURN collect({id: c.id, text: c.text, title: d.title}) AS evidence"
    "}"
    " RETURN node.id AS id, node.name AS name,"
    " [label IN labels(node) WHERE NOT label IN $graphOwnedLabels] AS labels,"
    " score, lexicalRank, semanticRank, size(evidence) > 0 AS supported,"
    " evidence[..$supportLimit] AS evidence, exact"
    " ORDER BY exact DESC, score DESC, id"
)

# Left out of a name's words as out of the query's (completeness compares the two).
FUNCTION_WORDS = sorted(STOP_WORDS)

# The labels contract §1 says are the graph's own, never entity labels.
GRAPH_OWNED_LABELS = ["Entity", "Chunk", "Document", "Job", "Community", "ResolvedEntity"]

# FULLTEXT and VECTOR index names of every entity label with both ONLINE (contract §1, §3).
INDEXES: LiteralString = (
    "SHOW INDEXES YIELD name, type, state, labelsOrTypes, properties"
    " WHERE type IN ['FULLTEXT', 'VECTOR'] AND size(labelsOrTypes) = 1"
    " RETURN name, type, state, labelsOrTypes[0] AS label, properties"
)

_WORD = re.compile(r"[^\W_]+")  # contract §3: Unicode letters and digits; `\w` has `_` too
_RUN = re.compile(r"[^\W\d_]+|\d+")  # a run of letters, or a run of digits, inside a word
_POSSESSIVE = re.compile(r"(?<=[^\W_])['’`]s(?![^\W_])", re.IGNORECASE)

# Between and around the query's letters and digits, an exact name may hold anything that is
# not one, a possessive 's included (Java regex, for Cypher's `=~` on the lowercased name).
_NAME_SEPARATOR = r"(?:['’`]s(?![\p{L}\p{N}]))?[^\p{L}\p{N}]*+"
_NO_NAME = "(?!)"  # matches nothing: a query without a letter or digit equals no name

# What the statement splits a name on before it looks at a token's characters one by one:
# whitespace and punctuation (ASCII and the usual typographic marks), so that a name of plain
# words costs one split.
SEPARATORS = sorted(set(string.whitespace + string.punctuation + "\u00a0‘’“”–—…·"))


def plain_words(text: str) -> list[str]:
    """The seed's reduction: the lowercased runs of letters and digits."""
    return _WORD.findall(text.lower())


def content_words(query: str) -> list[str]:
    """The words the lexical side uses, in order: no possessive 's, split where letters meet
    digits, no function word, no one-letter fragment (a digit stays).

    >>> content_words("Who is Taylor Cruz's mentor? F-16 or covid19")
    ['taylor', 'cruz', 'mentor', '16', 'covid', '19']
    """
    runs = [run for word in plain_words(_POSSESSIVE.sub("", query)) for run in _RUN.findall(word)]
    return [run for run in runs if (len(run) > 1 or run.isdigit()) and run not in STOP_WORDS]


def joined_forms(query: str) -> list[str]:
    """Letters and digits written together, as an index may hold a name ("COVID19"): each word
    that mixes them, and each run of letters followed by a run of digits ("covid 19").

    >>> joined_forms("COVID-19 and f16"), joined_forms("covid 19")
    (['f16', 'covid19'], ['covid19'])
    """
    words = plain_words(_POSSESSIVE.sub("", query))
    mixed = [word for word in words if len(_RUN.findall(word)) > 1]
    runs = [run for word in words for run in _RUN.findall(word)]
    pairs = [
        first + second
        for first, second in itertools.pairwise(runs)
        if not first.isdigit() and second.isdigit() and first not in STOP_WORDS
    ]
    return list(dict.fromkeys(mixed + pairs))


def exact_name_pattern(query: str) -> str:
    """A Java regex that holds for the lowercased names the query equals ignoring case,
    punctuation and a possessive 's (contract §3, "Names find their entities"): the query's
    letters and digits in order, as written or without its possessives, with anything else
    around and between them. tests/test_handwritten_search.py checks it on Neo4j.
    """
    keys = dict.fromkeys("".join(plain_words(text)) for text in (query, _POSSESSIVE.sub("", query)))
    alternatives = "|".join(_NAME_SEPARATOR.join(key) for key in keys if key)
    if not alternatives:
        return _NO_NAME
    return f"(?siu){_NAME_SEPARATOR}(?:{alternatives}){_NAME_SEPARATOR}"


def word_pattern(word: str) -> str:
    """A Java regex that holds when a lowercased name holds the content word `word` whole,
    maybe with a possessive 's; letters may touch digits and digits letters ("covid" is in
    "covid19"), and a final s may follow an apostrophe ("scrooges" is in "scrooge's")."""
    edge = r"\p{N}" if word.isdigit() else r"\p{L}"
    body = rf"\Q{word}\E"
    if len(word) > 2 and word.endswith("s") and not word.isdigit():
        body = rf"\Q{word[:-1]}\E['’`]?s"
    return rf"(?s).*(?<!{edge}){body}(?:['’`]s)?(?!{edge}).*"


@dataclass(frozen=True)
class Indexes:
    fulltext: list[str]
    vector: list[str]


async def read_indexes(driver: neo4j.AsyncDriver) -> Indexes:
    records, _, _ = await driver.execute_query(INDEXES, routing_=neo4j.RoutingControl.READ)
    vector = {
        r["label"]: r["name"]
        for r in records
        if r["type"] == "VECTOR" and r["properties"] == ["embedding"]
    }
    fulltext = {
        r["label"]: r["name"]
        for r in records
        if r["type"] == "FULLTEXT" and "name" in r["properties"]
    }
    labels = sorted(label for label in vector if label not in GRAPH_OWNED_LABELS)
    states = {r["name"]: r["state"] for r in records}
    for label in labels:
        for name in (fulltext.get(label), vector[label]):
            if name is None or states[name] != "ONLINE":
                raise RuntimeError(f"label {label}: index {name} is not ONLINE")
    return Indexes([fulltext[label] for label in labels], [vector[label] for label in labels])


@dataclass(frozen=True)
class Timed:
    rows: list[dict[str, Any]]
    server_ms: float  # what Neo4j reports: planning + execution + streaming


class HandwrittenSearch:
    """Embeds the query (the service's `hash` embedder) and runs SEARCH, nothing else."""

    def __init__(self, driver: neo4j.AsyncDriver, indexes: Indexes, dimension: int) -> None:
        self.driver = driver
        self.indexes = indexes
        self.embedder = HashEmbedder(dimension)

    def parameters(
        self,
        query: str,
        limit: int = 10,
        support_limit: int = 3,
        workspaces: Sequence[str] | None = None,
        document_ids: Sequence[str] | None = None,
    ) -> dict[str, Any]:
        [vector] = self.embedder.embed([query])
        words = content_words(query)
        distinct = list(dict.fromkeys(words))
        sent = words + [form for form in joined_forms(query) if form not in distinct]
        return {
            "fulltextIndexes": self.indexes.fulltext if words else [],
            "vectorIndexes": self.indexes.vector,
            "words": " ".join(sent),
            "wordPatterns": [word_pattern(word) for word in distinct],
            "required": math.ceil(len(distinct) / 2),
            "queryWords": len(distinct),
            "exactPattern": exact_name_pattern(query),
            "separators": SEPARATORS,
            "functionWords": FUNCTION_WORDS,
            "vector": vector,
            "k": min(2 * limit, 1000),
            "capK": 1000,
            "limit": limit,
            "supportLimit": support_limit,
            "evidenceK": max(1, support_limit),  # one passage tells SUPPORTED
            "rrfK": 60,
            "workspaces": None if workspaces is None else list(workspaces),
            "documentIds": None if document_ids is None else list(document_ids),
            "graphOwnedLabels": GRAPH_OWNED_LABELS,
        }

    async def run(self, parameters: dict[str, Any], statement: LiteralString = SEARCH) -> Timed:
        async with self.driver.session(default_access_mode=neo4j.READ_ACCESS) as session:
            result = await session.run(statement, parameters)
            rows = [record.data() async for record in result]
            summary = await result.consume()
        server = (summary.result_available_after or 0) + (summary.result_consumed_after or 0)
        return Timed(rows, float(server))

    async def search(self, query: str, **options: Any) -> Timed:
        return await self.run(self.parameters(query, **options))
