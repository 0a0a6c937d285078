"""The workspaces a caller may name in a scope (`grantedWorkspaces`; issue 40 §4, "The scope
panel"): those its credentials grant, read from the grant alone; for a caller granted every
workspace (`AUTH_MODE=none`, contract §8), those that hold a document it could read, so a page
can offer them as choices and a misspelt name cannot read as "nothing matches"."""

from __future__ import annotations

from answers.context import AnswerContext
from contract.scope import Grant
from graph.document_list import workspaces_with_documents


async def granted_workspaces(context: AnswerContext, grant: Grant) -> list[str]:
    listed = grant.listed()
    if listed is not None:
        return listed
    return await workspaces_with_documents(context.graph)
