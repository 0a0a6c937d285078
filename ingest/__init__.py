"""Loading data into the graph (contract §10).

The readers here are pure: `bundle` streams a bundle file and `graphrag` maps a Microsoft
GraphRAG output folder, both into `document_version.DocumentVersion` values, one per job.
Nothing in them touches the database; the loader checks their external references against the
graph and writes them through `graph.jobs`.
"""
