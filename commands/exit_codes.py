"""The exit codes of every `evidencegraph` command (contract §11).

A module of their own, importing nothing, so that `commands.main` and every command module can
take them without importing each other.
"""

EXIT_OK = 0
EXIT_FAILURE = 1  # anything else: Neo4j unreachable, an index that failed, …
EXIT_USAGE = 2  # bad usage or bad input: wrong arguments, settings or data
