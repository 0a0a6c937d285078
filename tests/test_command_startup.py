"""Each command imports only what it runs (commands/registry.py): `evidencegraph load` starts
without the GraphQL server, the MCP server and the `openai` embedder's HTTP client, about a
second of CPU saved on every start. The full help still lists every command."""

from __future__ import annotations

import subprocess
import sys

import pytest

from commands import registry
from commands.main import build_parser

SERVING_ONLY = ("strawberry", "mcp", "uvicorn", "httpx")


def modules_after_parsing(words: list[str]) -> set[str]:
    """The top-level packages imported once the parser for `words` is built, in a fresh
    interpreter."""
    script = (
        "import sys\n"
        "from commands.main import build_parser\n"
        f"build_parser({words!r})\n"
        "print(' '.join(sorted({name.split('.')[0] for name in sys.modules})))\n"
    )
    result = subprocess.run(
        [sys.executable, "-c", script], capture_output=True, text=True, check=True
    )
    return set(result.stdout.split())


@pytest.mark.parametrize("words", [["load", "data/x"], ["-v", "load", "--help"]])
def test_load_starts_without_the_serving_modules(words: list[str]) -> None:
    loaded = modules_after_parsing(words)
    assert "ingest" in loaded  # the load command's own modules were imported
    assert not loaded & set(SERVING_ONLY), sorted(loaded & set(SERVING_ONLY))


def test_the_full_parser_holds_every_command_under_its_registered_name() -> None:
    subcommands = next(action for action in build_parser()._actions if action.dest == "command")
    assert list(subcommands.choices) == list(registry.COMMANDS)  # type: ignore[arg-type]


def test_an_unknown_command_is_refused_with_the_list_of_commands(
    capsys: pytest.CaptureFixture[str],
) -> None:
    with pytest.raises(SystemExit) as exit_:
        build_parser(["lod"]).parse_args(["lod"])
    assert exit_.value.code == 2
    error = capsys.readouterr().err
    assert "invalid choice: 'lod'" in error
    assert all(f"'{name}'" in error for name in registry.COMMANDS)
