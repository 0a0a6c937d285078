"""What start-up built is kept out of the garbage collector's full passes while the app serves.

A serving process holds a large heap that start-up builds and keeps for its life: the modules,
the schema (Strawberry's and graphql-core's types), the driver, the embedder. CPython's cyclic
collector examines every tracked object of it on each full collection, and under load one came
about once a second, each taking about 80 ms of the process's one core: 0.39 ms of every search
answer, with p99 at 124 ms at 8 clients on scale S (bench/measured-apart.md, "Garbage
collection"). `gc.freeze()` at the end of start-up moves everything then alive into the
permanent generation, which collections skip: full passes then cost 0.07 ms an answer, the
process's CPU per answer fell by a fifth, and p99 at 8 clients to 70 ms. (`gc.freeze` is
CPython's own means to this end; its documentation describes it for servers that fork.)

`gc.unfreeze()` at shutdown hands those objects back to the collector, so an app started and
stopped many times in one process (the tests do) leaves nothing it cannot collect. What becomes
garbage while frozen (a start-up object in a reference cycle dropped while serving) waits for
that; start-up objects live as long as the app, so nothing grows while it serves.
"""

from __future__ import annotations

import contextlib
import gc
from collections.abc import Iterator


@contextlib.contextmanager
def frozen_while_serving() -> Iterator[None]:
    gc.freeze()
    try:
        yield
    finally:
        gc.unfreeze()
