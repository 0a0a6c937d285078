"""The known graph every test starts from, and what a module left behind when it ends.

The known graph is the session's one database with nothing in it but the service's own
constraints and indexes (graph/graph_schema.py CONSTRAINTS): no nodes, no relationships, no other
index or constraint, no transaction still open, and every setting as the server started with.
`reset` makes it so whatever ran before; `leftovers` lists, in words, how the database differs
from it. tests/conftest.py resets before every module and every test that takes the `graph`
fixture, and checks each module at its end: under `pytest -n 2 --dist loadfile` which modules
share a worker's server, and in what order, is decided by timing, so a module that leaves an
index behind (tests/test_localneo4j.py's 3-dimensional `Probe` vector index once made every
test of test_graphql_http.py fail at app start) fails its own run, by name, instead of another
module's run by luck.

It uses the driver's synchronous API, so the same reset serves async tests, sync tests and
module-scoped fixtures alike, inside or outside an event loop.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any, LiteralString

import neo4j

from graph.graph_schema import CONSTRAINTS


def schema_name(statement: str) -> str:
    """The name a `CREATE CONSTRAINT|INDEX <name> IF NOT EXISTS …` statement gives."""
    return statement.split()[2]


# Every constraint and index `apply_constraints` creates: the reset keeps them, so no test pays
# for creating them again (dropping one would also throw away every cached query plan).
STANDARD_SCHEMA = frozenset(schema_name(statement) for statement in CONSTRAINTS)

# Relationships first, in bounded transactions: deleting a dense hub's node with all its
# relationships at once would exceed the server's transaction memory.
DELETE_RELATIONSHIPS: LiteralString = (
    "MATCH ()-[r]->() CALL (r) { DELETE r } IN TRANSACTIONS OF 20000 ROWS"
)
DELETE_NODES: LiteralString = "MATCH (n) CALL (n) { DELETE n } IN TRANSACTIONS OF 20000 ROWS"
SHOW_CONSTRAINTS: LiteralString = "SHOW CONSTRAINTS YIELD name RETURN name"
SHOW_INDEXES: LiteralString = (
    "SHOW INDEXES YIELD name, type, owningConstraint"
    " WHERE type <> 'LOOKUP' AND owningConstraint IS NULL RETURN name"
)
NODES_BY_LABELS: LiteralString = (
    "MATCH (n) WITH labels(n) AS labels, count(*) AS nodes"
    " RETURN labels, nodes ORDER BY nodes DESC, labels LIMIT 5"
)
RELATIONSHIP_COUNT: LiteralString = "MATCH ()-[r]->() RETURN count(r) AS relationships"
# Every transaction but the one asking: a query still running, or a transaction a test opened
# and never closed, would hold locks and memory into the next module.
OTHER_TRANSACTIONS: LiteralString = (
    "SHOW TRANSACTIONS YIELD transactionId, currentQuery, status"
    " WHERE NOT currentQuery STARTS WITH 'SHOW TRANSACTIONS'"
    " RETURN transactionId, currentQuery, status"
)
SETTINGS: LiteralString = "SHOW SETTINGS YIELD name, value RETURN name, value"


def _rows(session: neo4j.Session, query: LiteralString, **parameters: Any) -> list[dict[str, Any]]:
    return [record.data() for record in session.run(query, parameters)]


def reset(driver: neo4j.Driver) -> None:
    """Make the database the known graph: every node and relationship gone, every index or
    constraint other than the service's dropped, the service's own there (one a test dropped is
    created again). A few statements when the database is already known."""
    with driver.session() as session:
        session.run(DELETE_RELATIONSHIPS).consume()
        session.run(DELETE_NODES).consume()
        present: set[str] = set()
        for row in _rows(session, SHOW_CONSTRAINTS):
            present.add(row["name"])
            if row["name"] not in STANDARD_SCHEMA:
                session.run("DROP CONSTRAINT $name", name=row["name"]).consume()
        for row in _rows(session, SHOW_INDEXES):
            present.add(row["name"])
            if row["name"] not in STANDARD_SCHEMA:
                session.run("DROP INDEX $name", name=row["name"]).consume()
        for statement in CONSTRAINTS:
            if schema_name(statement) not in present:
                session.run(statement).consume()


def settings(driver: neo4j.Driver) -> dict[str, str]:
    """Every setting's value as the server reports it now."""
    with driver.session() as session:
        return {row["name"]: str(row["value"]) for row in _rows(session, SETTINGS)}


@dataclass(frozen=True)
class Leftovers:
    """How the database differs from the known graph, each item in words."""

    items: tuple[str, ...]

    def __bool__(self) -> bool:
        return bool(self.items)

    def __str__(self) -> str:
        return "; ".join(self.items)


def leftovers(driver: neo4j.Driver, started_with: Mapping[str, str]) -> Leftovers:
    """What is in the database that the known graph does not hold, and what it lacks;
    `started_with` is the server's settings as the session first read them."""
    items: list[str] = []
    with driver.session() as session:
        if by_labels := _rows(session, NODES_BY_LABELS):
            shown = ", ".join(_label_set(row) for row in by_labels)
            items.append(f"nodes (the 5 largest label sets: {shown})")
        if relationships := _rows(session, RELATIONSHIP_COUNT)[0]["relationships"]:
            items.append(f"{relationships} relationships")
        constraints = {row["name"] for row in _rows(session, SHOW_CONSTRAINTS)}
        indexes = {row["name"] for row in _rows(session, SHOW_INDEXES)}
        if extra := sorted((constraints | indexes) - STANDARD_SCHEMA):
            items.append(f"indexes or constraints the service does not create: {extra}")
        if missing := sorted(STANDARD_SCHEMA - constraints - indexes):
            items.append(f"the service's own indexes or constraints dropped: {missing}")
        if transactions := _rows(session, OTHER_TRANSACTIONS):
            shown = ", ".join(_transaction(row) for row in transactions)
            items.append(f"transactions still open: {shown}")
    now = settings(driver)
    if changed := sorted(
        name for name in started_with.keys() | now.keys() if started_with.get(name) != now.get(name)
    ):
        shown = ", ".join(
            f"{name}: {started_with.get(name)!r} -> {now.get(name)!r}" for name in changed
        )
        items.append(f"settings changed: {shown}")
    return Leftovers(tuple(items))


def _label_set(row: Mapping[str, Any]) -> str:
    return f"{row['nodes']} {':'.join(row['labels']) or '(no label)'}"


def _transaction(row: Mapping[str, Any]) -> str:
    return f"{row['transactionId']} ({row['status']}): {row['currentQuery'][:80]!r}"
