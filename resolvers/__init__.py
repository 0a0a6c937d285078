"""The GraphQL face: one module per type or entry point, each field a short delegate.

No Cypher here; reads go through the per-request loaders (`info.context.loaders(scope)`) or the
graph-access functions they stand on.
"""
