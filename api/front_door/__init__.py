"""The front door (contract §7; docs/operations.md, "The front door"): what a `/graphql` request
and an MCP tool call pass before they may read the graph, one module per concern.

    door               the order of the steps, for every door (`FrontDoor`)
    persisted_queries  the document a hash names (Apollo's APQ), kept per grant
    trusted_documents  the manifests of GRAPHQL_TRUSTED_DOCUMENTS, read at start
    admission          a slot of this process, or OVERLOADED; refusals paced
    query_cost         a document's static cost, or COST_LIMIT_EXCEEDED
    rate_limit         the caller's cost points per minute, or RATE_LIMITED
    bounded_memory     what the front door remembers, bounded in bytes
    store              FRONT_DOOR_STORE: the Redis every replica shares the buckets, turns and
                       persisted queries through, and what happens while it cannot be reached

Nothing here knows the doors themselves (api/graphql_view.py, api/mcp_http.py,
commands/mcp_command.py): they call in.
"""
