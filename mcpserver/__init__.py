"""The MCP server (contract §12): six read-only tools over the same answers as the GraphQL fields
(answers/), for agents. `server.create_server` builds it; the stdio door is `evidencegraph mcp`
(commands/mcp_command.py), the Streamable HTTP door is `/mcp` on the service (api/mcp_http.py).
Nothing here knows Strawberry.
"""
