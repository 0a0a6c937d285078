"""The exact-name key: how a query with no content word finds the names it equals through an
index (contract §3 "a name made only of function words or single letters (`The Who`, `It`,
`Q`) is found by its exact name"; issue 25 §3).

Such a query reads no FULLTEXT index (`english` never indexes "it", "the", "a"), and the
exact-name test (retrieval/name_match.py) is a regex no index can seek. So the service keeps,
as contract §2 allows ("derived and maintained by the service itself, and its absence must not
change an answer"):

    nameKey     on every `:Entity`: its name's letters and digits, run together, case-folded,
                without any `s`. Every name a query equals has the query's key: the name and
                the query differ only in case, in what is not a letter or digit, and in a
                possessive 's, which the regex lets either side have or not; dropping every s
                makes the last one no difference (names that differ only by an s share a
                key, and the regex tells them apart). Case is folded lower, upper, lower, as
                Java's case-insensitive match does character by character ("ſ", "K", "İ",
                "ẞ"), and letters are kept before and after (Greek's final sigma, the dot
                "İ" leaves)
    NameKeyed   a label on every entity whose key the service wrote, in the same transaction as
                the name: `LINK_STAGED_ENTITIES` and `PUBLISH_VERSION` (graph/jobs.py), and
                `schema apply` for the entities it finds without one or with a key that is not
                their name's (graph/graph_schema.py)
    entity_name_key   the RANGE index on `(:Entity).nameKey`, made by `schema apply`

The exact-name read seeks the index for the query's key, then applies the regex to what it
finds: the keyed read's entities are exactly the scan's. It is taken only when Neo4j's count
store says every `:Entity` is `:NameKeyed` (two counts, no node read); an entity another
pipeline wrote without a key makes the search read every entity of the searched labels, as
before, until `schema apply` keys it. A name another pipeline changes in place keeps its old
key until then (docs/graph-model.md says so).
"""

from __future__ import annotations

from typing import LiteralString

from graph.served_statements import served

NAME_KEY: LiteralString = "nameKey"
NAME_KEYED: LiteralString = "NameKeyed"  # a service label (contract/graph_owned.py)
NAME_KEY_INDEX: LiteralString = (
    "CREATE INDEX entity_name_key IF NOT EXISTS FOR (n:Entity) ON (n.nameKey)"
)


def _letters(text: LiteralString) -> LiteralString:
    return (
        "reduce(key = '', ch IN split(" + text + ", '') |"
        " key + CASE WHEN ch =~ '[\\\\p{L}\\\\p{N}]' THEN ch ELSE '' END)"
    )


def name_key(text: LiteralString) -> LiteralString:
    """The Cypher expression of the key of `text` (a Cypher expression; not a string: '')."""
    folded = "toLower(toUpper(toLower(" + _letters("coalesce(toStringOrNull(" + text + "), '')")
    return "replace(" + _letters(folded + ")))") + ", 's', '')"


# Every entity keyed: a count of each label, from the count store.
NAME_KEYS_COMPLETE: LiteralString = served(
    "CALL () { MATCH (entity:Entity) RETURN count(entity) AS entities }"
    " CALL () { MATCH (keyed:" + NAME_KEYED + ") RETURN count(keyed) AS keyed }"
    " RETURN entities = keyed AS complete"
)

# Entities whose key is missing or not their name's: keyed, a batch to a transaction.
KEY_ENTITY_NAMES: LiteralString = (
    "MATCH (e:Entity) WITH e, " + name_key("e.name") + " AS key"
    " WHERE e.nameKey IS NULL OR e.nameKey <> key OR NOT e:" + NAME_KEYED + ""
    " CALL (e, key) { SET e.nameKey = key, e:" + NAME_KEYED + " } IN TRANSACTIONS OF 10000 ROWS"
    " RETURN count(e) AS keyed"
)
