"""The searches and the walk as both doors answer them (GraphQL in resolvers/, MCP in mcp/):
arguments checked, the index catalog and the query embedding, the statements of graph/ run,
records returned. Nothing here knows Strawberry or MCP; the doors prime their loaders and
build their own types from the records.
"""
