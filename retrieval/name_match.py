"""When a query names an entity: "Names are found by their names" (contract §3).

    exact name   the query equals the entity's name ignoring case, punctuation and a
                 possessive 's: "scrooge" and "Scrooges" name "Scrooge's", "covid 19" and
                 "COVID19" name "COVID-19", "the who" names "The Who", "q" names "Q"
    completeness how fully the query and the name cover each other: the share of their words
                 (content words, retrieval/lexical_rule.py) that they have in common, i.e. the
                 Jaccard index of the two word sets; 1 when they hold the same words

Both are decided in the database on the few candidates a search reads
(graph/entity_search.py); the functions here are their reference, without I/O, and the tests
check that the database agrees with them. The exact-name test is a Java regex built from the
query, so Cypher can apply it to any name without a derived property.
"""

from __future__ import annotations

import re
from collections.abc import Collection, Sequence

from retrieval.query_words import plain_words

# "Mercer's", "Scrooge’s": a letter or digit, an apostrophe, an s that ends the word.
POSSESSIVE = re.compile(r"(?<=[^\W_])['’`]s(?![^\W_])", re.IGNORECASE)

# In the Java regex: anything that is not a letter or digit, and a possessive 's before it.
_JAVA_SEPARATOR = r"(?:['’`]s(?![\p{L}\p{N}]))?[^\p{L}\p{N}]*+"
_PYTHON_SEPARATOR = r"(?:['’`]s(?![^\W_]))?(?:[\W_])*"


def name_keys(query: str) -> tuple[str, ...]:
    """The query's letters and digits, lowercased and run together: as written, and without
    its possessives. A name equals the query when one of these is its own key.

    >>> name_keys("Scrooge's Nephew"), name_keys("COVID 19")
    (('scroogesnephew', 'scroogenephew'), ('covid19',))
    """
    keys = ("".join(plain_words(query)), "".join(plain_words(POSSESSIVE.sub("", query))))
    return tuple(key for key in dict.fromkeys(keys) if key)


def _key_pattern(keys: Sequence[str], separator: str) -> str:
    # Every character of a key is a letter or digit (plain_words), never a regex metacharacter.
    alternatives = "|".join(separator.join(key) for key in keys)
    return f"(?:{separator})(?:{alternatives}){separator}"


def exact_name_pattern(query: str) -> str | None:
    """A Java regex (for Cypher's `=~`, which matches the whole string) that holds for the names
    the query equals, ignoring case, punctuation and possessives; None if the query has no
    letter or digit.

    >>> exact_name_pattern("?!") is None, exact_name_pattern("Q").count("q")
    (True, 1)
    """
    keys = name_keys(query)
    if not keys:
        return None
    return "(?siu)" + _key_pattern(keys, _JAVA_SEPARATOR)


def is_exact_name(query: str, name: str) -> bool:
    """The rule `exact_name_pattern` expresses for the database, in Python.

    >>> [is_exact_name(q, "Scrooge's") for q in ("scrooge", "SCROOGES", "scrooge's", "scroo")]
    [True, True, True, False]
    >>> is_exact_name("covid19", "COVID-19"), is_exact_name("the who", "The Who!")
    (True, True)
    """
    keys = name_keys(query)
    if not keys:
        return False
    return re.fullmatch(_key_pattern(keys, _PYTHON_SEPARATOR), name.lower(), re.DOTALL) is not None


def completeness(query_words: Collection[str], name_words: Collection[str]) -> float:
    """The share of the two word sets' union that they have in common (0 for two empty sets).

    >>> completeness(["scrooge"], ["scrooge"]), completeness(["scrooge"], ["ebenezer", "scrooge"])
    (1.0, 0.5)
    >>> round(completeness(["scrooge", "nephew"], ["fred", "scrooge", "nephew"]), 3)
    0.667
    """
    query_set, name_set = set(query_words), set(name_words)
    union = len(query_set | name_set)
    return len(query_set & name_set) / union if union else 0.0
