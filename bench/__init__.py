"""Benchmark scripts (not tests): run them as modules, `python -m bench.<name>`."""
