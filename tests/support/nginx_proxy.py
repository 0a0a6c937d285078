"""nginx in front of replicas on loopback, with docker/nginx.conf's rules (the compose profile
`scale`'s proxy): Debian's nginx (installed on first use, tests/support/debian_programs.py),
run as a child process in the foreground, with a prefix, pid file, logs and temporary files
of its own, never the system's service.

The configuration is docker/nginx.conf itself with only what differs outside Docker changed
(`proxy_config`): the upstream's one `server replica:8000 …` line (Docker's DNS name for every
replica) becomes one line per replica's loopback port, with the same parameters, and the
proxy listens on a loopback port of its own. Every other line (retries, keep-alive, body size,
the request id, `/metrics` hidden) is the file's; a change to the file that these substitutions
no longer fit fails the test, so the proxy the tests run cannot drift from the one shipped.
"""

from __future__ import annotations

import os
import re
import subprocess
import time
from collections.abc import Callable
from pathlib import Path

import httpx
import pytest

from tests.support.debian_programs import nginx
from tests.support.node_tools import REPOSITORY
from tests.support.serving import LOOPBACK, PROCESS_WAIT, free_port, stop_process

NGINX_CONF = REPOSITORY / "docker" / "nginx.conf"
UPSTREAM_SERVER = re.compile(r"^(\s*)server replica:8000( [^;]*);$", re.MULTILINE)
LISTEN = re.compile(r"^(\s*)listen 8080;$", re.MULTILINE)
EVENTS = re.compile(r"^events \{", re.MULTILINE)
HTTP = re.compile(r"^http \{$", re.MULTILINE)
TEMPORARY = ("client_body", "proxy", "fastcgi", "uwsgi", "scgi")


def _substitute(
    pattern: re.Pattern[str], replacement: str | Callable[[re.Match[str]], str], text: str
) -> str:
    changed, count = pattern.subn(replacement, text)
    if count != 1:
        pytest.fail(f"docker/nginx.conf no longer has one line matching {pattern.pattern!r}")
    return changed


def proxy_config(upstream_ports: list[int], listen_port: int, prefix: Path) -> str:
    """docker/nginx.conf for replicas on these loopback ports, listening on `listen_port`, its
    pid, error log and temporary files under `prefix`."""
    text = NGINX_CONF.read_text()

    def servers(line: re.Match[str]) -> str:
        indent, parameters = line.group(1), line.group(2)
        return "\n".join(
            f"{indent}server {LOOPBACK}:{port}{parameters};" for port in upstream_ports
        )

    text = _substitute(UPSTREAM_SERVER, servers, text)
    text = _substitute(LISTEN, rf"\1listen {LOOPBACK}:{listen_port};", text)
    own = [f"pid {prefix / 'nginx.pid'};", f"error_log {prefix / 'error.log'} warn;"]
    if os.geteuid() == 0:
        # Workers run as `nobody` under a root master: they could not reach the temporary
        # folders below the test's (private) directory.
        own.append("user root;")
    text = _substitute(EVENTS, "\n".join(own) + "\nevents {", text)
    temporary = "".join(f"\n    {kind}_temp_path {prefix / kind};" for kind in TEMPORARY)
    return _substitute(HTTP, "http {" + temporary, text)


class NginxProxy:
    """nginx for `upstream_ports`, on 127.0.0.1:`port`, in the folder `prefix`."""

    def __init__(self, prefix: Path, upstream_ports: list[int]) -> None:
        self.prefix = prefix
        self.port = free_port()
        self.config = prefix / "nginx.conf"
        self.config.write_text(proxy_config(upstream_ports, self.port, prefix))
        self.log = prefix / "error.log"
        self.process: subprocess.Popen[bytes] | None = None

    @property
    def url(self) -> str:
        return f"http://{LOOPBACK}:{self.port}"

    def start(self) -> None:
        """Start nginx in the foreground and return once it answers (a `/healthz` that some
        replica answered through it)."""
        command = [str(nginx()), "-p", str(self.prefix), "-c", str(self.config)]
        command += ["-g", "daemon off;"]
        with (self.prefix / "nginx.out").open("ab") as output:
            self.process = subprocess.Popen(command, stdout=output, stderr=subprocess.STDOUT)
        deadline = time.monotonic() + PROCESS_WAIT
        while not self._answers():
            if self.process.poll() is not None or time.monotonic() > deadline:
                self.stop()
                shown = (self.prefix / "nginx.out").read_text()[-3000:]
                logged = self.log.read_text()[-3000:] if self.log.is_file() else ""
                pytest.fail(f"nginx did not start:\n{shown}\n{logged}")
            time.sleep(0.05)

    def stop(self) -> None:
        """Stop nginx (SIGTERM: at once, its workers with it) and wait for its end."""
        process, self.process = self.process, None
        stop_process(process)

    def _answers(self) -> bool:
        try:
            return httpx.get(self.url + "/healthz", timeout=1.0).status_code == 200
        except httpx.TransportError:
            return False
