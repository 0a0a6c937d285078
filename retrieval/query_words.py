"""The lexical query rule (seed "passage search" rules, contract §3): "The lexical search reduces
the query to plain lowercase words, so Lucene syntax has no effect."

Lowercase the query, keep only word characters (Unicode letters and digits), split on anything
else, and join the words with single spaces. Lucene's classic parser treats only uppercase
AND/OR/NOT as operators, so lowercase words are always plain terms: no operator, quote,
wildcard, fuzzy marker, field name, range or escape ever reaches the index.
"""

from __future__ import annotations

import re

# A run of letters or digits in any script; `\w` minus the underscore.
_WORD = re.compile(r"[^\W_]+")


def plain_words(query: str) -> list[str]:
    """The query's words, lowercased, in order.

    >>> plain_words('Tiny Tim! "Scrooge/Marley" name:ada~2 AND (x*)')
    ['tiny', 'tim', 'scrooge', 'marley', 'name', 'ada', '2', 'and', 'x']
    """
    return _WORD.findall(query.lower())


def lexical_query(query: str) -> str:
    """The string sent to the FULLTEXT index: the plain words joined by spaces ('' if none)."""
    return " ".join(plain_words(query))
