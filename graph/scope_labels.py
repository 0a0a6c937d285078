"""The entity labels one scope holds (contract §6 `entityLabels`, MCP `entity_labels`; issue 38
§5): of the entity labels the index catalog names, those under which at least one entity is
returnable in the scope (graph/visibility.py `entity_returnable`). A label only another
workspace's entities carry is not listed, so a caller does not learn another workspace's
vocabulary (a GraphRAG or LangChain type becomes a label) from the list.

One statement, whatever the number of labels, one look per label, each stopping at the first
returnable entity it meets. Where the look starts:

- **the label's FULLTEXT index, by owner key**, when the scope names workspaces and the
  label's index covers the key and is ONLINE: the index gives only the nodes the scope's
  workspaces own and the unowned ones (graph/fulltext_query.py `owners_query`), as the lexical
  read takes its candidates (contract §2 "Ownership": an owned entity is mentioned only by its
  owner's passages). So what the look reads, and how long it takes, depends on the caller's
  own workspaces and the unowned entities, never on how many entities of the label other
  workspaces hold (a label scan would read all of them to find none returnable: a time that
  tells their number, for a request priced as one read). A stale key (another pipeline
  changed an owner) hides an entity here as it does from the lexical read, until `schema
  apply` (docs/graph-model.md, "When another pipeline changes an owner"); an entity without a
  string `name` or key is in no FULLTEXT index, as it is in no lexical result;
- **the label**, otherwise (a caller granted every workspace, an index missing, POPULATING or
  without the key, one gone meanwhile): its entities, written into the pattern when the label
  is a plain name (graph/cypher_names.py; `MATCH (n:$(label))` scans every node in Neo4j
  5.26), else matched as a parameter.

The statement's text depends on the scanned labels and on the scope's shape
(graph/mention_reads.py), so Neo4j plans it once per such set and shape.
"""

from __future__ import annotations

from collections.abc import Sequence

from neo4j.exceptions import ClientError

from contract.scope import Scope
from graph.catalog_cache import gone_index
from graph.cypher_names import cypher_name, split_plain
from graph.driver import Graph
from graph.fulltext_query import owners_query, scope_keys
from graph.index_catalog import IndexCatalog, IndexState
from graph.lookups import scoped
from graph.mention_reads import ScopeShape, scope_shape
from graph.ownership import OWNER_KEY
from graph.served_statements import ServingGraph, served_variants
from graph.statement_names import builds_statement
from graph.visibility import entity_returnable


@builds_statement
def labels_held(scanned: Sequence[str], shape: ScopeShape) -> str:
    """Which labels hold an entity returnable in the scope: `keyedHeld`, the labels of
    `$keyedTargets` (`{label, index}`) looked up through their index by `$ownersQuery`;
    `scannedHeld`, one boolean per plain label of `scanned`, in order; `oddHeld`, the labels
    of `$oddLabels`, matched as parameters. Parameters: `graph.lookups.scoped` adds the rest."""
    returnable = entity_returnable("labelled", shape)
    scanned_held = ", ".join(
        f"EXISTS {{ MATCH (labelled:Entity:{cypher_name(label)}) WHERE {returnable} }}"
        for label in scanned
    )
    return (
        "CALL () {"
        " UNWIND $keyedTargets AS target"
        " CALL (target) {"
        " CALL db.index.fulltext.queryNodes(target.index, $ownersQuery) YIELD node"
        f" WITH node AS labelled WHERE labelled:Entity AND {returnable}"
        " RETURN target.label AS held LIMIT 1"
        " }"
        " RETURN collect(held) AS keyedHeld"
        " }"
        f" RETURN keyedHeld, [{scanned_held}] AS scannedHeld,"
        " [label IN $oddLabels WHERE EXISTS { MATCH (labelled:Entity)"
        f" WHERE label IN labels(labelled) AND {returnable} }}] AS oddHeld"
    )


@served_variants
def _served(serving: ServingGraph) -> list[str]:
    """What a caller granted every workspace sends (every label scanned) and what one granted
    some sends when each label's index covers the key (every label looked up through it)."""
    plain, _ = split_plain(serving.entity_labels)
    return [labels_held(plain, "everywhere"), labels_held([], "workspaces")]


def _keyed_index(catalog: IndexCatalog, label: str) -> str | None:
    """The label's FULLTEXT index when a look may start from it: ONLINE, covering the key."""
    index = catalog.fulltext_index(label)
    if index is None or index.state is not IndexState.ONLINE:
        return None
    return index.name if OWNER_KEY in index.properties else None


async def labels_in_scope(graph: Graph, scope: Scope, catalog: IndexCatalog) -> list[str]:
    """The entity labels of `catalog` under which `scope` has a returnable entity, sorted."""
    labels = catalog.entity_labels()
    if not labels:
        return []
    keys = scope_keys(scope)
    indexes = {} if keys is None else {label: _keyed_index(catalog, label) for label in labels}
    try:
        return await _held(graph, scope, labels, indexes, keys or ())
    except ClientError as error:
        if gone_index(error) is None:
            raise
        # An index dropped since the catalog was read: look at the labels themselves.
        return await _held(graph, scope, labels, {}, ())


async def _held(
    graph: Graph,
    scope: Scope,
    labels: list[str],
    indexes: dict[str, str | None],
    keys: Sequence[str],
) -> list[str]:
    keyed = [{"label": label, "index": indexes[label]} for label in labels if indexes.get(label)]
    plain, odd = split_plain(label for label in labels if not indexes.get(label))
    [row] = await graph.read(
        labels_held(plain, scope_shape(scope)),
        scoped(scope, keyedTargets=keyed, ownersQuery=owners_query(keys), oddLabels=odd),
    )
    held = set(row["keyedHeld"]) | set(row["oddHeld"])
    held.update(label for label, found in zip(plain, row["scannedHeld"], strict=True) if found)
    return [label for label in labels if label in held]
