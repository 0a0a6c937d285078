"""Quote windows (mcpserver/quoting.py; issue 39, point 5; contract §12: "quotes are windows
around the mention (by the name's tokens; for an edge, both ends' names)"). Names and passages
come from the graph, so the properties are checked on text hypothesis makes up."""

from __future__ import annotations

from hypothesis import HealthCheck, assume, given, settings
from hypothesis import strategies as st

from mcpserver.quoting import ELLIPSIS, name_words, quote, window

UNTIMED = settings(deadline=None, suppress_health_check=[HealthCheck.too_slow])
WIDTH = 240

FILLER_WORDS = st.lists(
    st.sampled_from(["the", "old", "fog", "came", "down", "counting", "house", "cold", "and"]),
    min_size=80,
    max_size=400,
)
# Letters whose case changes back and forth (a few, like "ẖ", upper-case to two characters).
NAMES = (
    st.lists(
        st.text(st.characters(whitelist_categories=("Lu", "Ll")), min_size=3, max_size=10),
        min_size=1,
        max_size=3,
    )
    .map(" ".join)
    .filter(lambda name: name.upper().lower() == name.lower() == name.title().lower())
)


def written(name: str, style: int) -> str:
    """The name as a passage might write it: its case changed, its last word alone, with a
    possessive, or with punctuation between its words."""
    words = name.split()
    return [
        name.upper(),
        name.lower(),
        name.title() + "'s",
        words[-1].capitalize(),
        ", ".join(words) + ".",
    ][style]


@UNTIMED
@given(NAMES, FILLER_WORDS, st.integers(0, 10_000), st.integers(0, 4))
def test_the_window_holds_the_mention_however_the_passage_writes_the_name(
    name: str, filler: list[str], at: int, style: int
) -> None:
    assume(name_words(name))
    words = list(filler)
    words.insert(at % len(words), written(name, style))
    text = " ".join(words)
    assume(len(text) > WIDTH and not set(name_words(name)) & set(filler))
    quoted = quote(text, [name.upper()], WIDTH).lower()
    assert any(word in quoted for word in name_words(name)), (name, quoted)


@UNTIMED
@given(NAMES, NAMES, FILLER_WORDS, st.integers(0, 10_000), st.integers(1, 12))
def test_an_edges_window_holds_both_names_when_they_are_close(
    source: str, target: str, filler: list[str], at: int, apart: int
) -> None:
    assume(name_words(source) and name_words(target))
    assume(not set(name_words(source)) & set(name_words(target)))
    words = list(filler)
    spot = at % len(words)
    # Each name also stands alone far from the other, so only one window holds both.
    words[spot:spot] = [source, *filler[:apart], target]
    words = [target, *words, source]
    text = " ".join(words)
    assume(len(text) > 2 * WIDTH)
    quoted = quote(text, [source, target], WIDTH).lower()
    for name in (source, target):
        assert any(word in quoted for word in name_words(name)), (name, quoted)


@UNTIMED
@given(FILLER_WORDS, st.lists(st.text(max_size=12), max_size=4), st.integers(20, 400))
def test_a_window_is_at_most_its_width_and_starts_and_ends_on_a_word_boundary(
    filler: list[str], names: list[str], width: int
) -> None:
    text = " ".join(filler)
    found = window(text, names, width)
    assert len(found.excerpt) <= width
    assert found.excerpt.startswith(ELLIPSIS) == (found.start > 0)
    assert found.excerpt.endswith(ELLIPSIS) == (found.end < len(text))
    assert text[found.start : found.end] in found.excerpt
    for edge in (found.start, found.end):
        if 0 < edge < len(text):
            assert not (text[edge - 1].isalnum() and text[edge].isalnum())


def test_a_passage_that_starts_elsewhere_is_quoted_where_it_names_the_entity() -> None:
    """Issue 39: get_entity quoted EBENEZER SCROOGE's passage from its start, "title: a-
    christmas-carol.txt. clutching, covetous old sinner!", while "Scrooge" was at 648."""
    text = (
        "title: a-christmas-carol.txt. clutching, covetous old sinner! "
        + "Hard and sharp as flint, from which no steel had ever struck out generous fire. " * 7
        + "External heat and cold had little influence on Scrooge. No warmth could warm him."
    )
    assert text.index("Scrooge") > 600
    assert "Scrooge" in quote(text, ["EBENEZER SCROOGE"], WIDTH)


def test_a_name_made_only_of_short_or_function_words_is_found_by_them() -> None:
    assert name_words("The Who") == ["the", "who"]
    assert name_words("MR. FEZZIWIG") == ["fezziwig"]
    assert name_words("F-16") == ["16"]
