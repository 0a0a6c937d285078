"""The assembly: settings, lifespan, app factory, request context, auth and the schema object.

No query logic lives here (docs/architecture.md: `api/` assembles).
"""
