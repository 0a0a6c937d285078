"""The checks of the graph `serve` makes before it answers from it, run again until they pass.

At start the service checks that the graph's vectors were made by the configured embedder (its
record, or the vector indexes' dimension: api/embedder_setup.py) and tells the operator about
lexical indexes that differ from the settings. A mismatch found at start stops the service
(contract §9). When Neo4j is down at start the checks cannot run; skipping them for good would let
searches run later with vectors of another dimension and fail as INTERNAL. So until they have
passed, every GraphQL request, every MCP tool call (`/mcp` and `evidencegraph mcp`) and
`/readyz` tries them again first (one attempt at a time; `Services.ensure_graph_checked` is the
one way in): while Neo4j is still unreachable the request or tool call is answered
BACKEND_UNAVAILABLE and `/readyz` is 503; once they pass they are never run again. A mismatch
found after start cannot stop the service: it is logged as an error and every request is
BACKEND_UNAVAILABLE until the operator fixes the configuration and restarts it.
"""

from __future__ import annotations

import logging

import anyio

from api.embedder_setup import check_graph_embedder
from api.settings import SettingsError
from contract.errors import BackendUnavailable
from embedding.base import EmbedderIdentity
from graph.driver import Graph
from graph.lexical_index import LexicalIndexSpec

log = logging.getLogger(__name__)

NOT_CHECKED = "The graph database cannot be reached yet; try again."
MISMATCH = "The service's embedder does not fit the graph's vectors; the operator must fix it."


class GraphChecks:
    def __init__(
        self,
        graph: Graph,
        identity: EmbedderIdentity,
        lexical: LexicalIndexSpec,
        lexical_warnings: set[str],
    ) -> None:
        self.graph = graph
        self.identity = identity
        self.lexical = lexical
        self.passed = False
        self.mismatch: str | None = None
        # The problems told (shared with the searches, which then do not repeat them).
        self.lexical_warnings = lexical_warnings
        self._lock = anyio.Lock()

    async def at_start(self) -> None:
        """Run the checks; a mismatch stops the start (SettingsError), an outage does not."""
        try:
            await self._run()
        except BackendUnavailable:
            log.warning("Neo4j is not reachable yet; requests and /readyz will check it again")

    async def ensure(self) -> None:
        """Return once the checks have passed; BackendUnavailable while they cannot."""
        if self.passed:
            return
        async with self._lock:
            if self.passed:
                return
            if self.mismatch is not None:
                raise BackendUnavailable(MISMATCH)
            try:
                await self._run()
            except SettingsError as error:
                self.mismatch = str(error)
                log.error("the graph no longer fits the service's embedder: %s", error)
                raise BackendUnavailable(MISMATCH) from error
            except BackendUnavailable as error:
                raise BackendUnavailable(NOT_CHECKED) from error

    async def _run(self) -> None:
        catalog = await check_graph_embedder(self.graph, self.identity)
        problems = catalog.lexical_mismatches(self.lexical)
        for problem in problems:
            log.warning("%s", problem)
        self.lexical_warnings.update(problems)
        if not self.passed:
            log.info("the graph fits %s", self.identity.describe())
        self.passed = True
