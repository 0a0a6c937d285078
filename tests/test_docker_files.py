"""docker/ for users with a Docker engine: the compose file is valid and wired by the same
settings as the service, and the image carries every package the service imports. Checked
offline (no engine runs here): Debian's docker-compose 1.29 validates with `config`."""

from __future__ import annotations

import re
import subprocess
import tomllib
from pathlib import Path

import yaml

from api.settings import Settings
from tests.support.node_tools import debian_program

ROOT = Path(__file__).resolve().parents[1]
DOCKER = ROOT / "docker"


def compose_config() -> dict[str, object]:
    program = debian_program(Path("/usr/bin/docker-compose"), "docker-compose")
    result = subprocess.run(
        [str(program), "-f", str(DOCKER / "compose.yaml"), "--profile", "load", "config"],
        capture_output=True,
        text=True,
        check=False,
        timeout=120,
    )
    assert result.returncode == 0, result.stderr
    config: dict[str, object] = yaml.safe_load(result.stdout)
    return config


def test_the_compose_file_is_valid_and_runs_neo4j_5_26_community_and_the_service() -> None:
    services = compose_config()["services"]
    assert isinstance(services, dict)
    assert set(services) == {"neo4j", "evidencegraph", "load"}
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
