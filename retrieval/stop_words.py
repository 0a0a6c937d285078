"""English function words: the words of a query that never name anything.

The lexical side of entity search matches a query's words against entity names
(retrieval/lexical_rule.py). Words like "who", "the", "about" or "his" carry the grammar of a
question, not the name asked for: a name that shares only them with the query is no evidence
that the user meant it, and a query made of them alone must not fill the lexical list.

The list is NLTK's English stop list (the closed class of function words: articles, pronouns
and their possessives, prepositions, conjunctions, auxiliaries, question words, a few
quantifiers and adverbs of degree) with the modal verbs it lacks, "whose", and the fragments
an apostrophe leaves once the query is split into plain words ("don't" gives "don" and "t";
one-letter fragments go by the length rule in retrieval/lexical_rule.py). It holds no content
word, not even a common one ("tell", "show", "thing"), nor "past" or "may", which also name
things: those stay in the query, and the coverage rule decides whether a name holds enough.
"""

from __future__ import annotations

_FUNCTION_WORDS = """
    i me my myself we our ours ourselves you your yours yourself yourselves he him his himself
    she her hers herself it its itself they them their theirs themselves
    what which who whom whose this that these those
    am is are was were be been being have has had having do does did doing
    a an the and but if or because as until while of at by for with about against between into
    through during before after above below to from up down in out on off over under
    again further then once here there when where why how
    all any both each few more most other some such no nor not only own same so than too very
    can will just should now could would might must shall
    don doesn didn isn aren wasn weren haven hasn hadn couldn shouldn wouldn ll ve re
"""

STOP_WORDS: frozenset[str] = frozenset(_FUNCTION_WORDS.split())
