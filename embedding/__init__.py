"""Embedders behind one interface (contract §9), and the query-vector cache.

`base` is the interface (`Embedder`, `EmbedderIdentity`, the errors); `minilm`, `hashing` and
`openai_compatible` are the three kinds `EMBEDDER` selects; `factory.create_embedder` builds
one from the settings; `query_cache.QueryEmbedder` runs one off the event loop with a cache.
"""
