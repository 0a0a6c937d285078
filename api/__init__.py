"""The assembly: settings, lifespan, app factory, request context, auth and the schema object.

No query logic lives here (STYLE: "api/ assembles").
"""
