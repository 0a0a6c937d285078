"""docs/settings.md, rendered from `api.settings.SETTINGS`, so the page cannot drift from the
code (tests/test_settings_doc.py fails when it does). Rewrite it with:

    .venv/bin/python -m api.settings_doc
"""

from __future__ import annotations

import sys
from pathlib import Path

from api.settings import SETTINGS

DOCUMENT = Path(__file__).resolve().parents[1] / "docs" / "settings.md"

HEADER = """\
# Settings

<!-- Generated from api/settings.py (SETTINGS) by `.venv/bin/python -m api.settings_doc`;
     tests/test_settings_doc.py fails when this page and the code differ. -->

The service and every command read these environment variables once, at start. An unset or
empty variable takes its default, which is safe on a developer's machine; a value outside what
the variable accepts stops start-up with a message naming it. Secrets never appear in logs.
docs/security.md explains the authentication settings and why each limit's default is what
it is.

| variable | accepts | default | meaning |
|---|---|---|---|
"""


def render() -> str:
    rows = [
        f"| `{setting.variable}` | {setting.kind.accepts()} | {setting.kind.shows_default()} "
        f"| {setting.description} |"
        for setting in SETTINGS
    ]
    return HEADER + "\n".join(rows) + "\n"


def main() -> int:
    DOCUMENT.write_text(render(), encoding="utf-8")
    print(f"wrote {DOCUMENT}", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
