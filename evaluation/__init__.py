"""`evidencegraph eval`: labelled query sets and the measurement of retrieval quality."""
