"""contract/terminal_text.py: whatever a file or the graph holds, what is printed of it is one
line of printable characters that still says what was there."""

from __future__ import annotations

import codecs

from hypothesis import given
from hypothesis import strategies as st

from contract.terminal_text import printable

# What a hostile title would hold: C0 and C1 controls (ESC, BEL, CR, NEL), format characters
# (bidirectional overrides, zero-width joiners), line and paragraph separators, odd spaces,
# surrogates, private-use and unassigned code points, among ordinary letters.
NASTY = st.text(
    st.one_of(
        st.characters(),
        st.characters(categories=["Cc", "Cf", "Zl", "Zp", "Zs", "Cs", "Co", "Cn"]),
        st.sampled_from("\x1b[2J\x1b]8;;\x07\r\n\t\x85\u2028\u202e\\"),
    )
)


@given(NASTY)
def test_what_is_printed_is_printable_and_on_one_line(text: str) -> None:
    shown = printable(text)
    assert shown.isprintable()
    assert len(shown.splitlines()) <= 1


@given(st.characters(categories=["Cc", "Cf", "Zl", "Zp", "Zs", "Cs", "Co", "Cn"]))
def test_a_character_that_is_not_printable_is_shown_as_its_escape(char: str) -> None:
    if char.isprintable():  # the ASCII space, the one printable separator
        assert printable(char) == char
        return
    shown = printable(char)
    assert shown.startswith("\\") and shown.isascii()
    assert codecs.decode(shown.encode("ascii"), "unicode_escape") == char


@given(NASTY, NASTY)
def test_text_is_shown_character_by_character(first: str, second: str) -> None:
    # So what surrounds a control character can neither hide nor change how it is shown.
    assert printable(first + second) == printable(first) + printable(second)


@given(st.text(st.characters(exclude_categories=["Cc", "Cf", "Zl", "Zp", "Cs", "Co", "Cn"])))
def test_printable_text_is_printed_unchanged(text: str) -> None:
    if text.isprintable():
        assert printable(text) == text
