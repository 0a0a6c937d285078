"""A real Neo4j Community server on loopback, without Docker (contract §11 `evidencegraph neo4j`).

    errors         Neo4jUnavailable (and PortInUse): why a server could not be fetched or started
    filelock       an exclusive fcntl lock, so concurrent processes take turns
    jars           fetch the server's jars once per machine with Maven, into a shared cache
    launch         which Java, the neo4j.conf we write, the JVM command line
    process        the server JVM as a process: spawn it, recognise it by its home, end it
    readiness      wait until it answers Bolt; otherwise explain why, with its logs
    server         start / stop / status of a server living in a "home" directory
    pytest_server  a private server per test run (its own home, a free port)

Import the public API from `localneo4j.server`.
"""
