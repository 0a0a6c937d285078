"""`evidencegraph reembed`: make every stored vector again with the configured embedder.

Run it with the settings of the embedder you move to (`EMBEDDER=minilm evidencegraph reembed`)
while `serve` goes on with the old settings: it answers from the old vectors until the switch
(`ingest.reembedding`, docs/graph-model.md); restart it with the new settings after. A killed
run resumes where it stopped when started again with the same settings.

Exit codes: 0 done (or nothing to do: the vectors are already this embedder's); 2 bad
settings; 1 anything else (Neo4j unreachable, an index that failed).
"""

from __future__ import annotations

import argparse
import sys

from api.embedder_setup import embedder_from
from api.lifespan import open_graph
from api.settings import Settings
from commands.exit_codes import EXIT_OK
from commands.runtime import run_command
from embedding.query_cache import QueryEmbedder
from graph.lexical_index import LexicalIndexSpec
from ingest.load_progress import progress_display
from ingest.reembedding import reembed


async def run(settings: Settings) -> int:
    embedder = QueryEmbedder(embedder_from(settings), size=0)
    try:
        async with open_graph(settings) as graph:
            print(f"reembedding with {embedder.identity.describe()}", file=sys.stderr)
            lexical = LexicalIndexSpec(settings.lexical.fields)
            with progress_display("vectors", None, unit="vectors", command="reembed") as display:
                result = await reembed(graph, embedder, lexical, display)
    finally:
        embedder.close()
    if not result.switched:
        print(f"nothing to do: the vectors were made by {embedder.identity.describe()}")
        return EXIT_OK
    for line in result.totals.summary_lines():
        print(line)
    print(f"switched: the graph's vectors are {embedder.identity.describe()}'s")
    return EXIT_OK


def _handle(arguments: argparse.Namespace) -> int:
    return run_command(run)


def register(subcommands: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    parser = subcommands.add_parser(
        "reembed",
        help="make every entity and passage vector again with the configured embedder",
        description="Make every entity and passage vector again with the configured embedder "
        "(EMBEDDER, EMBEDDER_DIM), rebuild the vector indexes at its dimension, then record it "
        "as the graph's embedder. `serve` answers from the old vectors until that switch. A "
        "killed run resumes where it stopped.",
    )
    parser.set_defaults(handler=_handle)
