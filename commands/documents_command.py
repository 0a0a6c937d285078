"""`evidencegraph documents [--workspace W]`: the documents the graph serves, and its workspaces.

What an operator needs before `evidencegraph delete --document ID…` or an API key for a
workspace: one tab-separated line per document a reader could see (id, workspace, current
version, passages of that version, title), then one line naming each workspace with its counts.
Titles and workspace names come from loaded files: they are printed through
`contract.terminal_text.printable`, so none can move the cursor, forge a line or split a column.

Exit codes: 0 done (also when there is no document); 2 bad usage; 1 anything else (Neo4j
unreachable).
"""

from __future__ import annotations

import argparse
import sys
from collections import Counter

from api.lifespan import open_graph
from api.settings import Settings
from commands.exit_codes import EXIT_OK, EXIT_USAGE
from commands.runtime import run_command
from contract.terminal_text import printable
from graph.document_list import ListedDocument, list_documents

HEADER = "id\tworkspace\tversion\tpassages\ttitle"


def table_lines(documents: list[ListedDocument]) -> list[str]:
    """The header, then one tab-separated line per document, every text made printable (a tab
    in a title is escaped too, so the columns hold)."""
    return [HEADER] + [
        f"{document.id}\t{printable(document.workspace)}\t{document.version}\t"
        f"{document.passages}\t{'' if document.title is None else printable(document.title)}"
        for document in documents
    ]


def workspaces_line(documents: list[ListedDocument]) -> str:
    """`workspaces: acme (2 documents, 12 passages), demo (1 document, 5 passages)`."""
    counts = Counter(document.workspace for document in documents)
    passages: Counter[str] = Counter()
    for document in documents:
        passages[document.workspace] += document.passages
    shown = [
        f"{printable(workspace)} ({counts[workspace]} document"
        f"{'' if counts[workspace] == 1 else 's'}, {passages[workspace]} passages)"
        for workspace in sorted(counts)
    ]
    return f"workspaces: {', '.join(shown) or 'none'}"


async def run(settings: Settings, workspace: str | None) -> int:
    async with open_graph(settings) as graph:
        documents = await list_documents(graph, workspace)
    if not documents:
        where = f" in workspace {printable(workspace)}" if workspace is not None else ""
        print(f"no document{where}", file=sys.stderr)
    for line in [*table_lines(documents), workspaces_line(documents)]:
        print(line)
    return EXIT_OK


def _handle(arguments: argparse.Namespace) -> int:
    workspace: str | None = arguments.workspace
    if workspace is not None and not workspace.strip():
        print("error: --workspace must not be empty", file=sys.stderr)
        return EXIT_USAGE
    return run_command(lambda settings: run(settings, workspace))


def register(subcommands: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    parser = subcommands.add_parser(
        "documents",
        help="list the documents the graph serves (id, workspace, version, passages, title)",
        description="List every document a reader could see (not deleted, committed), one "
        "tab-separated line each: id, workspace, current version, passages of that version, "
        "title; then the workspaces with their counts. The ids are what `evidencegraph delete "
        "--document` takes.",
    )
    parser.add_argument(
        "--workspace", default=None, metavar="W", help="only the documents of workspace W"
    )
    parser.set_defaults(handler=_handle)
