"""`evidencegraph schema apply`: constraints and per-label indexes, mentions in evidence order,
and the owners a graph an earlier release loaded can be given (contract §2, §11)."""

from __future__ import annotations

import argparse

from api.embedder_setup import configured_dimension
from api.lifespan import open_graph
from api.settings import Settings
from commands.exit_codes import EXIT_OK
from commands.owner_report import print_progress, report_lines
from commands.runtime import run_command
from graph.graph_schema import apply_schema
from graph.lexical_index import LexicalIndexSpec
from graph.mention_order import DENSE_MENTIONS, order_mentions
from graph.owner_stamping import stamp_owners


async def _apply(settings: Settings) -> int:
    dimension = configured_dimension(settings)
    async with open_graph(settings) as graph:
        lexical = LexicalIndexSpec(settings.lexical.fields)
        report = await apply_schema(graph, dimension, lexical=lexical)
        order = await order_mentions(graph)
        owners = await stamp_owners(graph, print_progress, settings.graph_owned_relation_types)
    labels = ", ".join(report.labels) or "none yet"
    print(f"entity labels: {labels}")
    print(f"indexes created: {', '.join(report.created) or 'none (all existed)'}")
    print(
        f"mentions in evidence order: {order.in_order} of {order.dense} entities with more than"
        f" {DENSE_MENTIONS} mentions read through the order indexes; {order.rekeyed:,} mentions"
        " of documents moved to another workspace keyed anew"
    )
    if report.skipped:
        shown = ", ".join(repr(label) for label in report.skipped)
        print(f"no index for labels not made of letters, digits and _: {shown}")
    # Undecided owners are no failure: an unowned entity or relation answers as before.
    for line in report_lines(owners):
        print(line)
    return EXIT_OK


def _handle(arguments: argparse.Namespace) -> int:
    return run_command(_apply)


def register(subcommands: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    parser = subcommands.add_parser("schema", help="manage constraints and indexes")
    actions = parser.add_subparsers(dest="action", required=True, metavar="ACTION")
    apply = actions.add_parser(
        "apply",
        help="create constraints and both indexes of every entity label, and keep every "
        "mention in evidence order, and give entities, relations and passages their "
        "workspace where the graph decides it (idempotent); a label's FULLTEXT index that "
        "RETRIEVAL_LEXICAL_FIELDS or the analyzer no longer match is created again; owner keys "
        "another pipeline's owner changes left stale are fixed and counted (run it after such "
        "writes: docs/graph-model.md)",
    )
    apply.set_defaults(handler=_handle)
