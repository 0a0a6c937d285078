"""How the words of a query combine on the lexical side of entity search.

The seed fixes what reaches the index: "The lexical search matches the words of the query
against the entity name" and "reduces the query to plain lowercase words, so Lucene syntax has
no effect" (contract §3). It leaves open which of those words count and how many of them a name
must hold. This module decides both, without I/O; docs/retrieval-quality.md gives the
measurements that chose the defaults.

    1. possessives  "Mercer's team" asks for Mercer: a trailing 's (or ’s) is dropped before the
                    reduction, so it leaves no stray "s"
    2. content      the plain words (retrieval/query_words.py) minus function words
                    (retrieval/stop_words.py) and one-character fragments; only these are
                    sent to the FULLTEXT index, still as plain lowercase words
    3. coverage     a name counts as a lexical hit only if it holds at least `min_coverage` of
                    the distinct content words (whole words, case-insensitive, a possessive
                    's allowed): a question that names the entity clears it with room for
                    extra words, a description that shares one generic word with a name
                    ("the team's headquarters" and FACILITY) does not

A query with no content word reads nothing lexically: HYBRID is then its semantic list.
"""

from __future__ import annotations

import math
import re
from dataclasses import dataclass

from retrieval.query_words import plain_words
from retrieval.stop_words import STOP_WORDS

# Entity properties the lexical side may read: the seed's `name`, and (opt-in, a departure
# from the seed) `description` too.
LEXICAL_FIELD_CHOICES: tuple[tuple[str, ...], ...] = (("name",), ("name", "description"))

# "Mercer's", "Scrooge’s": a letter or digit, an apostrophe, an s that ends the word.
_POSSESSIVE = re.compile(r"(?<=[^\W_])['’`]s(?![^\W_])", re.IGNORECASE)


@dataclass(frozen=True, slots=True)
class LexicalRule:
    """The lexical side's choices; the defaults are the service's (docs/retrieval-quality.md).

    `stop_words` and `possessives` are switchable only so that the eval can measure the
    seed's rule as first written (every plain word, any one of them a hit).
    """

    fields: tuple[str, ...] = ("name",)
    min_coverage: float = 0.5
    stop_words: bool = True
    possessives: bool = True


@dataclass(frozen=True, slots=True)
class LexicalRequest:
    """What the lexical side of one search sends and checks."""

    text: str  # the FULLTEXT query: plain lowercase words joined by spaces
    word_patterns: tuple[str, ...]  # one Java regex per distinct content word
    required: int  # how many of those words a hit's fields must hold


def content_words(query: str, rule: LexicalRule = LexicalRule()) -> list[str]:
    """The words of `query` the lexical side uses, in order.

    >>> content_words("Who is Taylor Cruz's mentor?")
    ['taylor', 'cruz', 'mentor']
    >>> content_words("Who is Taylor Cruz's mentor?", LexicalRule(stop_words=False,
    ...     possessives=False))
    ['who', 'is', 'taylor', 'cruz', 's', 'mentor']
    """
    if rule.possessives:
        query = _POSSESSIVE.sub("", query)
    words = plain_words(query)
    if rule.stop_words:
        words = [word for word in words if len(word) > 1 and word not in STOP_WORDS]
    return words


def word_pattern(word: str) -> str:
    """A Java regex (for Cypher's `=~`) that holds when lowercased text contains `word` as a
    whole word, possibly followed by a possessive. `word` is a plain word (letters and digits
    only); `\\Q…\\E` quotes it all the same.

    >>> print(word_pattern("mercer"))
    (?s).*(?<![\\p{L}\\p{N}])\\Qmercer\\E(?:['’`]s)?(?![\\p{L}\\p{N}]).*
    """
    return rf"(?s).*(?<![\p{{L}}\p{{N}}])\Q{word}\E(?:['’`]s)?(?![\p{{L}}\p{{N}}]).*"


def lexical_request(query: str, rule: LexicalRule = LexicalRule()) -> LexicalRequest | None:
    """The lexical side of a search for `query`, or None when no word of it is searchable.

    >>> request = lexical_request("Tell me about the equipment bay")
    >>> request.text, request.required, len(request.word_patterns)
    ('tell equipment bay', 2, 3)
    >>> lexical_request("who is it?") is None
    True
    """
    words = content_words(query, rule)
    if not words:
        return None
    distinct = list(dict.fromkeys(words))
    required = math.ceil(rule.min_coverage * len(distinct) - 1e-9)
    return LexicalRequest(
        text=" ".join(words),
        word_patterns=tuple(word_pattern(word) for word in distinct),
        required=required,
    )
