"""`PassageConnection` and `PageInfo`: a page of passages and how to read the next one, for the
paged fields (`Entity.evidencePage`, `Edge.evidencePage`, `Document.passages`).

A page is read with one passage more than asked (graph/passage_pages.py), so `hasNextPage` is
known without a second read; `endCursor` is the sort key of the page's last passage
(contract/page_cursor.py), so the next page starts after it whatever loaded meanwhile.
"""

from __future__ import annotations

from collections.abc import Callable

import strawberry

from graph.records import PassageRecord
from loaders import Loaders
from resolvers.passage import Passage


@strawberry.type(description="Where a page ends, and whether another page follows it.")
class PageInfo:
    end_cursor: str | None = strawberry.field(
        description="Pass as `after` to read the next page; null when this page is empty."
    )
    has_next_page: bool = strawberry.field(
        description="True when at least one more passage follows this page's last one."
    )


@strawberry.type(description="A page of passages.")
class PassageConnection:
    nodes: list[Passage] = strawberry.field(description="The page's passages, in order.")
    page_info: PageInfo = strawberry.field(description="Where the page ends.")


def passage_connection(
    loaders: Loaders,
    records: list[PassageRecord],
    first: int,
    cursor: Callable[[PassageRecord], str],
) -> PassageConnection:
    """The page of `first` passages from `records` (read with one more, when there is one);
    the passages also prime the request's loaders, as every other read's do."""
    shown = records[:first]
    for record in shown:
        loaders.prime_passage(record)
    return PassageConnection(
        nodes=[Passage.from_record(record, loaders.scope) for record in shown],
        page_info=PageInfo(
            end_cursor=cursor(shown[-1]) if shown else None, has_next_page=len(records) > first
        ),
    )


def empty_page() -> PassageConnection:
    return PassageConnection(nodes=[], page_info=PageInfo(end_cursor=None, has_next_page=False))
