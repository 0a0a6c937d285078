"""Per-request DataLoaders: created by one `create_loaders(graph, scope)` per request
and scope, never at import time, so no cache is ever shared between callers or scopes.

Each loader is named after what it returns and its key, like the Cypher it runs
(`passages_by_id` runs `graph.lookups.PASSAGES_BY_ID`). Every loader returns `None` (or `[]`)
for a key that is missing *or* hidden: the visibility rule is applied in the statement.
Nothing in this package imports strawberry.
"""

from loaders.request_loaders import Loaders, create_loaders

__all__ = ["Loaders", "create_loaders"]
