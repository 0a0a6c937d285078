"""The statements requests send, declared where each is defined, so that they can all be
planned before any request needs them (graph/plan_warming.py).

Every read a request can send is declared served where its text is made:

    served(STATEMENT)            a constant (`PASSAGES_BY_ID = served(...)`)
    served_each(TABLE)           a statement built for each scope shape (`for_each_shape`)
    served_variants(variants)    statements that depend on the graph: `variants(serving)`
                                 gives them for what `ServingGraph` says the graph holds
                                 (the walk's and `describe_graph`'s, written with the stored
                                 relationship types; the entity search's, for the vector
                                 store in use)

`served_statements(serving)` gives them all. A statement's values are parameters, sent in
one map (graph/plan_key.py), so its text alone is what Neo4j plans: the labels a search names,
a scope's workspaces or a batch's keys make no new plan. What does: the scope's shape (a
statement per shape), the source of lexical candidates, the vector store, and, for a walk or
`describe_graph`, the relationship types written into the statement. The walk's default (every
stored type it may follow) is declared; a walk that names a subset of types plans its
statements on first use (graph/planned_statements.py bounds that).

tests/test_plan_warming.py sends a request of every kind through every door and fails when
one sends a statement not declared here.
"""

from __future__ import annotations

import importlib
import pkgutil
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass
from typing import Any, TypeVar

import graph

S = TypeVar("S", bound=str)
M = TypeVar("M", bound=Mapping[Any, str])


@dataclass(frozen=True, slots=True)
class ServingGraph:
    """What decides which statements requests send, besides the code."""

    relation_types: tuple[str, ...]  # every stored relationship type
    graph_owned_types: tuple[str, ...]  # contract §2: never walked (GRAPH_OWNED_RELATION_TYPES)
    external_vectors: bool  # semantic reads come from a store outside Neo4j (VECTOR_STORE)
    # The entity labels the index catalog names, in its order (`entityLabels` writes them into
    # its statement for a caller granted every workspace: graph/scope_labels.py).
    entity_labels: tuple[str, ...] = ()

    def walked_types(self) -> list[str]:
        """The types a walk follows when it names none (graph/walk.py `followed`)."""
        owned = set(self.graph_owned_types)
        return sorted(t for t in set(self.relation_types) if t not in owned)


Variants = Callable[[ServingGraph], Iterable[str]]

_fixed: list[str] = []
_variants: list[Variants] = []


def served(statement: S) -> S:
    """Declare a constant statement served; returns it."""
    _fixed.append(statement)
    return statement


def served_each(table: M) -> M:
    """Declare every statement of a table (one per scope shape) served; returns it."""
    _fixed.extend(table.values())
    return table


def served_variants(variants: Variants) -> Variants:
    """Declare the statements `variants` gives for a graph served; returns it."""
    _variants.append(variants)
    return variants


def served_statements(serving: ServingGraph) -> list[str]:
    """Every statement requests send to a graph like `serving`, each once, in the order they
    were declared (modules in name order)."""
    _import_every_module()
    statements = [*_fixed, *(s for variants in _variants for s in variants(serving))]
    return list(dict.fromkeys(statements))


def _import_every_module() -> None:
    """Every module of graph/, so that all of them have declared theirs."""
    for module in sorted(pkgutil.iter_modules(graph.__path__), key=lambda m: m.name):
        importlib.import_module(f"{graph.__name__}.{module.name}")
