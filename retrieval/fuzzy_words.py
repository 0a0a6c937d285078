"""The words a "did you mean" looks for (issue 40 §3, "Search that forgives"): names within a
few typing mistakes of the query's words, found by Lucene's fuzzy match on each label's name
index (graph/name_suggestions.py). The search itself is not changed by it (contract §3's lexical
rule stays as it is); the suggestions are offered beside its answer.

    words   the lexical rule's content words (retrieval/lexical_rule.py `content_words`): the
            query reduced to plain lowercase words (retrieval/query_words.py), less function
            words and one-letter fragments, each once; nothing else of the query reaches Lucene
    edits   how far a name's word may be from each: none for a word of one or two characters or
            of digits (any two-letter word is two edits from any other, and a year one edit
            from the next), one for three characters, two from four (Lucene's fuzzy query
            allows at most two); written `word~N`, the one operator the service adds. Two from
            four, not from six as a spelling checker would, because Lucene compares the word
            with the index's terms, which the `english` analyzer has stemmed
            (graph/lexical_index.py): MARLEY is held as "marlei", SCROOGE as "scroog", so the
            stem's own change spends an edit that the reader's typo also needs

    order   Lucene finds the names; its scores do not say which is closest (a fuzzy query's
            terms are scored alike), so the names are ordered here: those nearest to more of the
            query's words first (each query word counts by how alike it is to the name's most
            alike word, difflib's ratio, when that is at least `ALIKE`), then those with fewer
            words beyond the query's, then the shorter, then by name

>>> fuzzy_terms("Scroge and Marly's ghost")
'scroge~2 marly~2 ghost~2'
>>> fuzzy_terms("F-16 to GPT-4"), fuzzy_terms("the it")
('16 gpt~1 4', '')
"""

from __future__ import annotations

from collections.abc import Iterable
from difflib import SequenceMatcher

from retrieval.lexical_rule import LexicalRule, content_words
from retrieval.query_words import plain_words

ONE_EDIT_FROM = 3  # characters: shorter words must match as they are
TWO_EDITS_FROM = 4
SERVICE_RULE = LexicalRule()
# How alike two words must be to count as the same word mistyped (difflib's ratio: 0.67 for a
# three-letter word with one letter changed, 0.75 for four, 0.92 for "scroge" and "scrooge");
# below it, no credit.
ALIKE = 0.65


def edits(word: str) -> int:
    """How many edits (insertions, deletions, substitutions, transpositions) a name's word may
    be from `word` and still be suggested."""
    if word.isdigit() or len(word) < ONE_EDIT_FROM:
        return 0
    return 1 if len(word) < TWO_EDITS_FROM else 2


def fuzzy_terms(query: str, rule: LexicalRule = SERVICE_RULE) -> str:
    """The Lucene terms of a "did you mean" for `query`: its distinct content words, each with
    the edits it allows; '' when it has none (nothing is read)."""
    terms = []
    for word in dict.fromkeys(content_words(query, rule)):
        allowed = edits(word)
        terms.append(f"{word}~{allowed}" if allowed else word)
    return " ".join(terms)


def closest(query: str, names: Iterable[str], limit: int) -> list[str]:
    """Up to `limit` of `names`, each once, closest to `query` first (module docstring).

    >>> closest("Scroge", ["SCROOGE'S FUNERAL", "SCROOGE", "MR. SCROOGE", "SCROOGE"], 3)
    ['SCROOGE', 'MR. SCROOGE', "SCROOGE'S FUNERAL"]
    """
    words = list(dict.fromkeys(content_words(query)))

    def order(name: str) -> tuple[float, int, int, str]:
        name_words = content_words(name) or plain_words(name)
        alike = (
            max((SequenceMatcher(None, word, held).ratio() for held in name_words), default=0.0)
            for word in words
        )
        near = sum(ratio for ratio in alike if ratio >= ALIKE)
        beyond = max(0, len(set(name_words)) - len(words))
        return (-near, beyond, len(name), name)

    return sorted(dict.fromkeys(names), key=order)[:limit]
