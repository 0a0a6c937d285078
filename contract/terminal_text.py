"""Text from a file or the graph made safe to print on one line of a terminal or a log.

A title, a name or a message may hold anything its file held: an escape sequence (ESC `[2J`
clears the screen, OSC 8 forges a link, OSC 52 writes the clipboard), a carriage return that
overwrites what the line showed, a line break that forges the next line, a bidirectional
override that shows the line in another order. Every character that is not printable (Python's
`str.isprintable`: the control and format characters, line and paragraph separators, every
space but the ASCII one, surrogates, private-use and unassigned code points) is written as its
escape instead (`\\x1b`, `\\n`, `\\u202e`), so what is printed is always one line of visible
characters, and still says what was there.

    >>> printable("Operation Dulce"), printable("a\\x1b[2Jb\\r\\n")
    ('Operation Dulce', 'a\\\\x1b[2Jb\\\\r\\\\n')
"""

from __future__ import annotations


def printable(text: str) -> str:
    """`text` with every character that is not printable escaped; unchanged when none is."""
    if text.isprintable():
        return text
    return "".join(c if c.isprintable() else c.encode("unicode_escape").decode() for c in text)
