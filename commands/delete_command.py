"""`evidencegraph delete --document ID… [--workspace W] | --workspace W` (contract §10, §11):
retire documents as jobs.

Each document is retired by a job (graph/retirement.py): at its commit every passage of the
document stops being visible at once, so entities and relations only it supported stop being
returned. Loading the document again brings it back. `evidencegraph purge` removes what a
deletion left in the store.

Every id is checked before anything is written: an id that is not a canonical UUID, or that no
document has, stops the command with exit code 2 and the ids named, and nothing is deleted (a
list with a typo in it is more likely a mistake than a wish to delete the rest). A workspace
with no document is exit code 2 as well. A document deleted before is counted, not deleted
again: running the same command twice, or again after it was stopped, is safe.

contract §10: "`delete --document D --workspace W` refuses a D outside W". With both, every id
must be a document of W, or the command stops (exit code 2) before anything is deleted, naming
the ids; the message does not say whether such an id is another workspace's or nobody's, so a
platform that deletes on a tenant's behalf tells the tenant nothing of other workspaces. The
retirements themselves are held to W as well (graph/retirement.py), so a document another
pipeline moves out of W after the check is not deleted either.

Exit codes: 0 done; 2 bad usage, an unknown id or workspace; 1 anything else (Neo4j
unreachable).
"""

from __future__ import annotations

import argparse
import sys

from api.lifespan import open_graph
from api.settings import Settings
from commands.exit_codes import EXIT_OK, EXIT_USAGE
from commands.runtime import run_command
from contract.identifiers import is_canonical_uuid
from contract.terminal_text import printable
from graph.retirement import documents_named, documents_of_workspace
from ingest.deletion import delete_documents
from ingest.load_progress import progress_display

# Ids named in one error line; the rest are counted.
NAMED_IN_ERRORS = 10


def _named(ids: list[str]) -> str:
    shown = ", ".join(ids[:NAMED_IN_ERRORS])
    more = len(ids) - NAMED_IN_ERRORS
    return shown + (f" and {more} more" if more > 0 else "")


async def run(settings: Settings, document_ids: list[str] | None, workspace: str | None) -> int:
    async with open_graph(settings) as graph:
        if document_ids is not None:
            states = await documents_named(graph, document_ids)
            # Held to W: a document of another workspace is refused as an unknown one is.
            unknown = [
                state.id
                for state in states
                if not state.found or (workspace is not None and state.workspace != workspace)
            ]
            if unknown:
                whose = "" if workspace is None else f" of workspace {_shown(workspace)}"
                print(
                    f"error: no document{whose} has the id {_named(unknown)}; nothing was deleted",
                    file=sys.stderr,
                )
                return EXIT_USAGE
        else:
            assert workspace is not None
            states = await documents_of_workspace(graph, workspace)
            if not states:
                print(f"error: workspace {_shown(workspace)} has no document", file=sys.stderr)
                return EXIT_USAGE
        with progress_display("document", len(states), command="delete") as display:
            totals = await delete_documents(
                graph, [state.id for state in states], display, workspace=workspace
            )
    for line in totals.summary_lines():
        print(line)
    return EXIT_OK


def _shown(workspace: str) -> str:
    return printable(repr(workspace))


def _handle(arguments: argparse.Namespace) -> int:
    document_ids: list[str] | None = arguments.document
    workspace: str | None = arguments.workspace
    problem = None
    if document_ids is None and workspace is None:
        problem = "name the documents (--document ID…), a workspace (--workspace W), or both"
    elif workspace is not None and not workspace.strip():
        problem = "--workspace must not be empty"
    elif document_ids is not None:
        malformed = [value for value in document_ids if not is_canonical_uuid(value)]
        if malformed:
            problem = f"not a document id (a canonical lowercase UUID): {_named(malformed)}"
    if problem:
        print(f"error: {problem}", file=sys.stderr)
        return EXIT_USAGE
    return run_command(lambda settings: run(settings, document_ids, workspace))


def register(subcommands: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    parser = subcommands.add_parser(
        "delete",
        help="delete documents: each is retired by a job, all its passages at once",
        description="Delete documents: each is retired by a job, and at its commit every "
        "passage of the document stops being visible at once, with the entities and relations "
        "only it supported. Loading the document again brings it back; `evidencegraph purge` "
        "removes what is left in the store. Every id is checked first: an unknown one, or with "
        "--workspace one of another workspace, stops the command (exit code 2) before anything "
        "is deleted.",
    )
    parser.add_argument(
        "--document", nargs="+", metavar="ID", default=None, help="the ids of the documents"
    )
    parser.add_argument(
        "--workspace",
        default=None,
        metavar="W",
        help="every document of W; with --document, the workspace every named document must "
        "be of (use it to delete on a tenant's behalf)",
    )
    parser.set_defaults(handler=_handle)
