"""How a server is launched: which Java, the neo4j.conf we write, the JVM command line.

The JVM is started directly with Neo4j's entry class rather than through Neo4j's own launcher
script, so heap flags go on the command line (neo4j.conf's heap settings are read only by that
launcher).
"""

from __future__ import annotations

import os
import re
import shutil
import subprocess
from collections.abc import Mapping
from pathlib import Path

from localneo4j.errors import Neo4jUnavailable
from localneo4j.jars import NEO4J_VERSION

LOOPBACK = "127.0.0.1"
SUPPORTED_JAVA = (17, 21)
# Declared in META-INF/services/org.neo4j.server.startup.EntryPoint of neo4j-5.26.x.jar
# (Neo4j 2025.x renamed it).
ENTRY_CLASS = "org.neo4j.server.CommunityEntryPoint"
# The directories Neo4j uses, all under the home (conf is passed as --config-dir); the jars stay
# in the shared cache.
SERVER_DIRECTORIES = ("data", "logs", "run", "import", "plugins")
HOME_DIRECTORIES = ("conf", *SERVER_DIRECTORIES)

# Sized for a 2-core 24 GiB machine on which several engineers' test runs each start their own
# server: 1 GiB heap and 512 MiB page cache keep one server near 700 MB resident.
JVM_OPTIONS = (
    "-Xms512m",
    "-Xmx1g",
    "-XX:+UseG1GC",
    "-XX:-OmitStackTraceInFastThrow",
    "-Dio.netty.tryReflectionSetAccessible=true",
    "-Djdk.nio.maxCachedBufferSize=1024",
    # Without java.nio opened, vector index population has been seen to stall near 100%.
    "--add-opens=java.base/java.nio=ALL-UNNAMED",
    "--add-opens=java.base/java.io=ALL-UNNAMED",
    "--add-opens=java.base/sun.nio.ch=ALL-UNNAMED",
    "--enable-native-access=ALL-UNNAMED",
)

# Settings a caller may not override: they are what keeps the server private to this machine.
_GUARDED_SETTINGS = frozenset(
    {
        "server.default_listen_address",
        "server.default_advertised_address",
        "server.bolt.listen_address",
        "server.bolt.advertised_address",
        "server.http.enabled",
        "server.https.enabled",
        "dbms.usage_report.enabled",
    }
)


def java_executable() -> str:
    """`$JAVA_HOME/bin/java` when JAVA_HOME is set, else `java` on PATH; checked to be 17 or 21."""
    java_home = os.environ.get("JAVA_HOME", "")
    if java_home:
        java = Path(java_home) / "bin" / "java"
        if not java.is_file():
            raise Neo4jUnavailable(
                f"JAVA_HOME is {java_home}, but {java} does not exist. Point JAVA_HOME at a "
                "Java 17 or 21 installation, or unset it to use `java` on PATH."
            )
        executable = str(java)
    else:
        found = shutil.which("java")
        if found is None:
            raise Neo4jUnavailable(
                f"No Java found: Neo4j {NEO4J_VERSION} needs Java 17 or 21. Install one "
                "(e.g. the openjdk-17-jre-headless package) or set JAVA_HOME."
            )
        executable = found
    result = subprocess.run(  # noqa: S603 (a java executable, fixed arguments)
        [executable, "-version"], capture_output=True, text=True, timeout=60, check=False
    )
    banner = result.stderr + result.stdout
    major = java_major_version(banner)
    if major not in SUPPORTED_JAVA:
        found_version = f"Java {major}" if major is not None else "an unrecognised Java"
        raise Neo4jUnavailable(
            f"Neo4j {NEO4J_VERSION} runs on Java 17 or 21, but {executable} is {found_version}. "
            "Set JAVA_HOME to a Java 17 or 21 installation.\n"
            f"--- {executable} -version ---\n{banner.strip()}"
        )
    return executable


def java_major_version(banner: str) -> int | None:
    """The major version in `java -version` output: `version "17.0.15"` → 17, "1.8.0" → 8.

    >>> java_major_version('openjdk version "21" 2023-09-19')
    21
    """
    match = re.search(r'version "(\d+)(?:\.(\d+))?', banner)
    if match is None:
        return None
    major = int(match.group(1))
    # Java 8 and older report "1.<major>".
    if major == 1 and match.group(2) is not None:
        return int(match.group(2))
    return major


def server_settings(
    home: Path, port: int, extra: Mapping[str, str] | None = None
) -> dict[str, str]:
    """The neo4j.conf settings of a loopback server at `home` serving Bolt on `port`.

    Neo4j validates the file strictly: an unknown key stops start-up (and shows in its log).
    """
    guarded = _GUARDED_SETTINGS.intersection(extra or {})
    if guarded:
        raise ValueError(
            f"these settings keep the server on loopback and cannot be overridden: "
            f"{', '.join(sorted(guarded))}"
        )
    settings = {
        "server.default_listen_address": LOOPBACK,
        "server.default_advertised_address": LOOPBACK,
        "server.bolt.listen_address": f"{LOOPBACK}:{port}",
        "server.bolt.advertised_address": f"{LOOPBACK}:{port}",
        "server.http.enabled": "false",
        "server.https.enabled": "false",
        # Otherwise a routing connector takes a second port (7688) on every server.
        "dbms.routing.enabled": "false",
        "dbms.security.auth_enabled": "false",
        # The only thing that would reach the internet.
        "dbms.usage_report.enabled": "false",
        **{f"server.directories.{name}": str(home / name) for name in SERVER_DIRECTORIES},
        "server.memory.pagecache.size": "512m",
        "dbms.memory.transaction.total.max": "512m",
    }
    settings.update(extra or {})
    return settings


def write_config(home: Path, settings: Mapping[str, str]) -> Path:
    """Write `<home>/conf/neo4j.conf`, replacing any earlier one, and return its path."""
    conf = home / "conf" / "neo4j.conf"
    lines = ["# Written by evidencegraph (localneo4j) at every start; edits are overwritten."]
    lines += [f"{key}={value}" for key, value in settings.items()]
    conf.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return conf


def jvm_command(java: str, home: Path, lib: Path) -> list[str]:
    """The command line of a server JVM for `home`, with the jars in `lib`."""
    classpath = os.pathsep.join([f"{home / 'plugins'}/*", f"{home / 'conf'}/*", f"{lib}/*"])
    return [
        java,
        *JVM_OPTIONS,
        "-cp",
        classpath,
        ENTRY_CLASS,
        home_marker(home),
        f"--config-dir={home / 'conf'}",
        "--console-mode",
    ]


def home_marker(home: Path) -> str:
    """The argument that identifies, in a process's command line, the server of `home`."""
    return f"--home-dir={home}"
