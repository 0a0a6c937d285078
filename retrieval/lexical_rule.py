"""How the words of a query combine on the lexical side of entity search.

The seed fixes what reaches the index: "The lexical search matches the words of the query
against the entity name" and "reduces the query to plain lowercase words, so Lucene syntax has
no effect" (contract §3). It leaves open which of those words count and how many of them a name
must hold. This module decides both, without I/O; docs/retrieval-quality.md gives the
measurements that chose the defaults.

    1. possessives  "Mercer's team" asks for Mercer: a trailing 's (or ’s) is dropped before the
                    reduction, so it leaves no stray "s"
    2. content      the plain words (retrieval/query_words.py), split where letters meet
                    digits ("covid19" is "covid" and "19", as "COVID-19" is), minus function
                    words (retrieval/stop_words.py) and one-letter fragments (a digit stays:
                    the 4 of "GPT-4"); these are sent to the FULLTEXT index, still as plain
                    lowercase words, with the letter-digit runs also joined ("covid19" for
                    "covid 19"), so a name written with or without the hyphen is read
    3. coverage     a name counts as a lexical hit only if it holds at least `min_coverage` of
                    the distinct content words (whole words, case-insensitive, a possessive
                    's allowed; a word of letters may touch digits and the reverse): a question
                    that names the entity clears it with room for extra words, a description
                    that shares one generic word with a name ("the team's headquarters" and
                    FACILITY) does not
    4. exact name   a name the query equals (retrieval/name_match.py) is always a hit; a query
                    with no content word ("The Who", "It", "Q") reads no FULLTEXT index and
                    looks for that exact name only, through its key (graph/name_key.py)
"""

from __future__ import annotations

import itertools
import math
import re
from dataclasses import dataclass

from retrieval.name_match import POSSESSIVE, exact_name_pattern, name_keys
from retrieval.query_words import plain_words
from retrieval.stop_words import STOP_WORDS

# Entity properties the lexical side may read: the seed's `name`, and (opt-in, a departure
# from the seed) `description` too.
LEXICAL_FIELD_CHOICES: tuple[tuple[str, ...], ...] = (("name",), ("name", "description"))

# A run of letters, or a run of digits, inside a plain word.
_ATOM = re.compile(r"[^\W\d_]+|\d+")


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

    text: str  # the FULLTEXT query: plain lowercase words joined by spaces; '' reads no index
    word_patterns: tuple[str, ...]  # one Java regex per distinct content word
    required: int  # how many of those words a hit's fields must hold
    words: tuple[str, ...]  # the distinct content words, for completeness (name_match.py)
    exact_pattern: str  # the Java regex of the names the query equals (name_match.py)
    name_key: str  # its letters and digits run together, whose key the exact-name read seeks
    function_words: tuple[str, ...]  # left out of a name's words, as out of the query's
    drop_one_letter: bool  # one-letter fragments are left out of a name's words too


def content_words(query: str, rule: LexicalRule = LexicalRule()) -> list[str]:
    """The words of `query` the lexical side uses, in order.

    >>> content_words("Who is Taylor Cruz's mentor?")
    ['taylor', 'cruz', 'mentor']
    >>> content_words("Who is Taylor Cruz's mentor?", LexicalRule(stop_words=False,
    ...     possessives=False))
    ['who', 'is', 'taylor', 'cruz', 's', 'mentor']
    >>> content_words("F-16 and GPT4"), content_words("The Who")
    (['16', 'gpt', '4'], [])
    """
    if rule.possessives:
        query = POSSESSIVE.sub("", query)
    words = [atom for word in plain_words(query) for atom in _ATOM.findall(word) or [word]]
    if rule.stop_words:
        words = [word for word in words if kept(word)]
    return words


def kept(word: str) -> bool:
    """A plain word counts unless it is a function word or a single letter."""
    return (len(word) > 1 or word.isdigit()) and word not in STOP_WORDS


def joined_forms(query: str, rule: LexicalRule = LexicalRule()) -> list[str]:
    """Letter and digit runs written together, for names the index holds as one word ("COVID19",
    or the "r2" and "d2" of "R2-D2"): each plain word that mixes them, and each run of letters
    followed by a run of digits, within a word or across neighbouring words ("covid 19").

    >>> joined_forms("COVID-19 and F 16"), joined_forms("covid19 cases"), joined_forms("r2d2")
    (['covid19', 'f16'], ['covid19'], ['r2d2', 'r2', 'd2'])
    """
    if rule.possessives:
        query = POSSESSIVE.sub("", query)
    words = plain_words(query)
    joined = [word for word in words if len(_ATOM.findall(word)) > 1]
    atoms = [atom for word in words for atom in _ATOM.findall(word)]
    for first, second in itertools.pairwise(atoms):
        if first.isalpha() and second.isdigit() and first not in STOP_WORDS:
            joined.append(first + second)
    return list(dict.fromkeys(joined))


def word_pattern(word: str) -> str:
    """A Java regex (for Cypher's `=~`) that holds when lowercased text contains `word` as a
    whole word, possibly followed by a possessive; a word of letters may touch digits ("covid"
    in "covid19") and a word of digits letters. A final s may follow an apostrophe
    ("scrooges" in "scrooge's"). `word` is a run of letters or of digits; `\\Q…\\E` quotes it
    all the same.

    >>> print(word_pattern("mercer"))
    (?s).*(?<!\\p{L})\\Qmercer\\E(?:['’`]s)?(?!\\p{L}).*
    >>> print(word_pattern("19"))
    (?s).*(?<!\\p{N})\\Q19\\E(?:['’`]s)?(?!\\p{N}).*
    """
    edge = r"\p{N}" if word.isdigit() else r"\p{L}"
    body = rf"\Q{word}\E"
    if len(word) > 2 and word.endswith("s") and not word.isdigit():
        body = rf"\Q{word[:-1]}\E['’`]?s"
    return rf"(?s).*(?<!{edge}){body}(?:['’`]s)?(?!{edge}).*"


def lexical_request(query: str, rule: LexicalRule = LexicalRule()) -> LexicalRequest | None:
    """The lexical side of a search for `query`, or None when it has no letter or digit.

    >>> request = lexical_request("Tell me about the equipment bay")
    >>> request.text, request.required, len(request.word_patterns)
    ('tell equipment bay', 2, 3)
    >>> lexical_request("COVID-19 cases").text, lexical_request("who is it?").text
    ('covid 19 cases covid19', '')
    """
    exact = exact_name_pattern(query)
    if exact is None:
        return None
    words = content_words(query, rule)
    distinct = list(dict.fromkeys(words))
    required = math.ceil(rule.min_coverage * len(distinct) - 1e-9)
    sent = words + [form for form in joined_forms(query, rule) if form not in distinct]
    return LexicalRequest(
        text=" ".join(sent) if words else "",
        word_patterns=tuple(word_pattern(word) for word in distinct),
        required=required,
        words=tuple(distinct),
        exact_pattern=exact,
        name_key=name_keys(query)[0],
        function_words=tuple(sorted(STOP_WORDS)) if rule.stop_words else (),
        drop_one_letter=rule.stop_words,
    )
