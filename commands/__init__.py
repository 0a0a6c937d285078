"""The `evidencegraph` command: one module per command group, registered in `main`."""
