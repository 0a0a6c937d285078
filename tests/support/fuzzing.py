"""What the fuzz tests share (tests/test_fuzz_graphql.py, tests/test_fuzz_mcp.py): the little
graph they fuzz and the service under uvicorn in its production configuration (API keys,
introspection off, default limits), as the fixtures `fuzz_graph` and `fuzz_service` (a plugin
of tests/conftest.py); the odd values every string and integer may be (issue 38 §3), counted as
they are drawn; and the check that no body tells of the service's internals."""

from __future__ import annotations

import json
import re
from collections import Counter
from collections.abc import AsyncIterator, Iterator
from typing import Any

import pytest
from hypothesis import strategies as st

from api.settings import SETTINGS
from graph.driver import Graph
from graph.graph_schema import apply_schema
from tests.conftest import TEST_DIMENSION
from tests.support.graph_builder import GraphBuilder
from tests.support.serving import Served, served_api

API_KEY = "fuzzing-key-acme-0123456789abcdef"
# Words the seeded graph holds (names, labels, relation types, workspaces, the graph-owned
# `HAS_PART`), mixed with arbitrary text, so generated requests reach the searches, the walk and
# the scope checks instead of stopping at the first argument check.
WORDS = ["ada", "Ada Lovelace", "engine", "Person", "Org", "KNOWS", "WORKS_WITH", "HAS_PART"]
WORDS += ["acme", "globex"]
_LEAKS = re.compile(
    r"Traceback|neo4j|Cypher|MATCH \(|UNWIND |Neo\.ClientError|File \"|\.py\b|site-packages|/work/"
    r"|pydantic",
    re.IGNORECASE,
)
# A setting's name is public (docs/settings.md): a message may name the one to change (a
# statement stopped at NEO4J_QUERY_TIMEOUT_SECONDS, on a busy machine), which tells nothing of
# the internals.
SETTING_NAMES = re.compile("|".join(sorted((s.variable for s in SETTINGS), key=len, reverse=True)))


def leak(text: str) -> str | None:
    """What of the service's internals `text` shows, if anything."""
    found = _LEAKS.search(SETTING_NAMES.sub("", text))
    return found.group() if found else None


# Characters Unicode never assigns: valid text, to be read and searched like any other.
NON_CHARACTERS = [chr(c) for c in range(0xFDD0, 0xFDF0)] + [
    chr(plane * 0x10000 + last) for plane in range(17) for last in (0xFFFE, 0xFFFF)
]
ODD_STRINGS = {
    # Unpaired surrogates, alone or inside a word (JSON's escapes can spell them).
    "surrogates": st.builds(
        lambda word, surrogate, at: word[:at] + surrogate + word[at:],
        st.sampled_from(WORDS),
        st.characters(categories=["Cs"]),
        st.integers(0, 12),
    ),
    "non-characters": st.builds(
        lambda word, odd: word + " " + odd, st.sampled_from(WORDS), st.sampled_from(NON_CHARACTERS)
    ),
}
ODD_INTEGERS = {
    "beyond 64 bits": st.one_of(
        st.integers(min_value=2**63, max_value=2**200),
        st.integers(min_value=-(2**200), max_value=-(2**63) - 1),
    ),
}
# An odd value one time in this many: a request has many values, and one odd value refuses it
# at the door before its field runs.
ODD_ONE_IN = 8


class Drawn(Counter[str]):
    """How many values each generator gave, for the run's summary."""

    def counted(self, name: str, strategy: st.SearchStrategy[Any]) -> st.SearchStrategy[Any]:
        def note(value: Any) -> Any:
            self[name] += 1
            return value

        return strategy.map(note)

    def odd_strings(self, where: str) -> st.SearchStrategy[str]:
        return self._either(where, ODD_STRINGS)

    def odd_integers(self, where: str) -> st.SearchStrategy[int]:
        return self._either(where, ODD_INTEGERS)

    def _either(
        self, where: str, strategies: dict[str, st.SearchStrategy[Any]]
    ) -> st.SearchStrategy[Any]:
        """One of `strategies`, each as often (`one_of` favours the first)."""
        return st.sampled_from(sorted(strategies)).flatmap(
            lambda name: self.counted(f"{where}: {name}", strategies[name])
        )


def now_and_then(
    odd: st.SearchStrategy[Any], usual: st.SearchStrategy[Any]
) -> st.SearchStrategy[Any]:
    """`usual`, and one time in `ODD_ONE_IN` `odd`."""
    return st.integers(1, ODD_ONE_IN).flatmap(lambda n: odd if n == 1 else usual)


async def write_fuzz_graph(graph: Graph) -> list[str]:
    """A little of everything: two workspaces, versions, a running job, relations. Returns the
    ids it wrote."""
    builder = GraphBuilder(graph, dimension=TEST_DIMENSION)
    first = await builder.version(
        "acme",
        ["Ada Lovelace wrote the notes.", "Babbage built the engine."],
        mentions={"Ada": [0], "Babbage": [1]},
        relations=[("Ada", "WORKS_WITH", "Babbage", [0]), ("Ada", "KNOWS", "Babbage", None)],
    )
    written = [
        first,
        await builder.version(
            "acme", ["Ada, revised."], document_id=first.document_id, mentions={"Ada": [0]}
        ),
        await builder.version(
            "globex", ["Grace Hopper."], mentions={"Grace": [0]}, labels={"Grace": ["Org"]}
        ),
        await builder.version("acme", ["Unfinished."], mentions={"Ada": [0]}, commit=False),
    ]
    await apply_schema(graph, TEST_DIMENSION)
    return [
        *builder.entity_ids.values(),
        *{v.document_id for v in written},
        *(p for v in written for p in v.passage_ids),
    ]


@pytest.fixture(scope="module")
async def fuzz_graph(module_graph: Graph) -> AsyncIterator[list[str]]:
    """`write_fuzz_graph`'s graph for a fuzz module, on the known graph and wiped when the
    module is done (conftest's `module_graph`)."""
    yield await write_fuzz_graph(module_graph)


@pytest.fixture(scope="module")
def fuzz_service(
    fuzz_graph: list[str], neo4j_uri: str, tmp_path_factory: pytest.TempPathFactory
) -> Iterator[Served]:
    """The service under uvicorn with one API key (`API_KEY`, workspace acme)."""
    logs = tmp_path_factory.mktemp("fuzz")
    keys = logs / "keys.json"
    keys.write_text(json.dumps({API_KEY: ["acme"]}))
    settings = {"AUTH_MODE": "apikeys", "AUTH_API_KEYS_FILE": str(keys)}
    with served_api(neo4j_uri, logs, "fuzzed", **settings) as served:
        yield served


# How the service logs what it did not expect (api/errors.py, mcpserver/server.py); a Neo4j
# fault's own description ("general processing exception - unexpected error") is not one.
UNEXPECTED = re.compile(r"unexpected error at |failed unexpectedly|Traceback")


def clean_log(served: Served) -> str | None:
    """What the served process logged that it must not have: an unexpected error, else None."""
    log = served.log.read_text()
    found = UNEXPECTED.search(log)
    return log[max(0, found.start() - 500) : found.start() + 2500] if found else None
