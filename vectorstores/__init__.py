"""Where semantic reads come from (seed steps 3–4): the graph's own vector indexes (default), or
an external vector store holding entity vectors per label, capped at its `max_results`."""
