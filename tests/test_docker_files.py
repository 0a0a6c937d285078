"""docker/ for users with a Docker engine: the compose file is valid and wired by the same
settings as the service, and the image carries every package the service imports. Checked
offline (no engine runs here): Debian's docker-compose 1.29 validates with `config`, every
profile enabled."""

from __future__ import annotations

import os
import re
import subprocess
import tomllib
from pathlib import Path

import yaml

from api.settings import Settings
from tests.support.debian_programs import debian_program

ROOT = Path(__file__).resolve().parents[1]
DOCKER = ROOT / "docker"
PROFILES = ("--profile", "load", "--profile", "scale")


def compose_config(**environment: str) -> dict[str, object]:
    """The compose file as docker-compose reads it, with the user's `environment` (and none of
    the variables it interpolates unless given here)."""
    program = debian_program(Path("/usr/bin/docker-compose"), "docker-compose")
    interpolated = set(re.findall(r"\$\{(\w+)", (DOCKER / "compose.yaml").read_text()))
    inherited = {k: v for k, v in os.environ.items() if k not in interpolated}
    result = subprocess.run(
        [str(program), "-f", str(DOCKER / "compose.yaml"), *PROFILES, "config"],
        capture_output=True,
        text=True,
        check=False,
        timeout=120,
        env=inherited | environment,
    )
    assert result.returncode == 0, result.stderr
    config: dict[str, object] = yaml.safe_load(result.stdout)
    return config


def test_the_compose_file_is_valid_and_runs_neo4j_5_26_community_and_the_service() -> None:
    services = compose_config()["services"]
    assert isinstance(services, dict)
    assert set(services) == {"neo4j", "evidencegraph", "load", "replica", "redis", "proxy"}
    assert services["neo4j"]["image"] == "neo4j:5.26-community"
    assert services["evidencegraph"]["ports"][0].startswith("127.0.0.1:8000:8000")


def test_the_service_settings_in_compose_are_ones_the_service_reads() -> None:
    environment = compose_config()["services"]["evidencegraph"]["environment"]  # type: ignore[index]
    settings = Settings.from_environ({k: str(v) for k, v in environment.items()})
    assert settings.neo4j_uri == "bolt://neo4j:7687"
    assert settings.auth_mode == "apikeys"  # never `none` outside loopback


def test_the_image_copies_every_python_package_of_the_service() -> None:
    """The packages pyproject ships (`bench/` and `tests/` are not the service's)."""
    dockerfile = (DOCKER / "Dockerfile").read_text()
    copied = set(re.findall(r"^COPY (\w+)/ \1/$", dockerfile, flags=re.MULTILINE))
    pyproject = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))
    shipped = [
        p.rstrip("*") for p in pyproject["tool"]["setuptools"]["packages"]["find"]["include"]
    ]
    packages = {path.parent.name for path in ROOT.glob("*/__init__.py")}
    assert set(shipped) <= packages, f"pyproject ships what is not here: {set(shipped) - packages}"
    assert set(shipped) <= copied, f"not copied into the image: {sorted(set(shipped) - copied)}"


def test_profile_scale_runs_two_replicas_sharing_a_redis_behind_a_pinned_nginx() -> None:
    services = compose_config()["services"]
    assert isinstance(services, dict)
    replica, proxy = services["replica"], services["proxy"]
    assert replica["profiles"] == ["scale"] and proxy["profiles"] == ["scale"]
    assert replica["deploy"]["replicas"] == 2
    assert replica["build"] == services["evidencegraph"]["build"]
    assert "ports" not in replica  # reached through the proxy only
    assert re.fullmatch(r"nginx:\d+\.\d+\.\d+-alpine", proxy["image"]), proxy["image"]
    assert [p.removesuffix("/tcp") for p in proxy["ports"]] == ["127.0.0.1:8080:8080"]
    [volume] = proxy["volumes"]
    assert volume.endswith("docker/nginx.conf:/etc/nginx/nginx.conf:ro"), volume
    # The replicas read the same settings as the single service, plus operations' own.
    environment = {k: str(v) for k, v in replica["environment"].items()}
    settings = Settings.from_environ(environment)
    assert settings.neo4j_uri == "bolt://neo4j:7687" and settings.auth_mode == "apikeys"
    assert settings.metrics_enabled and settings.metrics_token is None  # loopback only
    assert settings.log_format == "json"
    # The front door's state is one for both replicas (docs/operations.md, "What is shared
    # where"), in the profile's own Redis, pinned.
    assert settings.front_door_store == "redis://redis:6379/0"
    assert services["redis"]["profiles"] == ["scale"] and "ports" not in services["redis"]
    assert re.fullmatch(r"redis:7\.\d+\.\d+-alpine", services["redis"]["image"])
    # Stopping a replica waits for its requests in flight (REQUEST_TIMEOUT_SECONDS + margin).
    grace = int(replica["stop_grace_period"].rstrip("s"))
    assert grace > settings.request_timeout_seconds
    nginx = (DOCKER / "nginx.conf").read_text()
    assert "server replica:8000" in nginx and "listen 8080;" in nginx
    assert "location = /metrics { return 404; }" in nginx


def test_compose_gives_the_metrics_token_no_default() -> None:
    """Unset, /metrics answers loopback only; a token comes from the user alone."""
    for environment in ({}, {"METRICS_TOKEN": ""}):
        replica = compose_config(**environment)["services"]["replica"]  # type: ignore[index]
        assert not replica["environment"].get("METRICS_TOKEN"), environment
    token = "m" * 32
    replica = compose_config(METRICS_TOKEN=token)["services"]["replica"]  # type: ignore[index]
    environment = {k: str(v) for k, v in replica["environment"].items()}
    assert Settings.from_environ(environment).metrics_token == token
