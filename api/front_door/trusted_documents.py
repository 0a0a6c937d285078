"""Trusted documents (GRAPHQL_TRUSTED_DOCUMENTS, api/front_door/persisted_queries.py): the
manifests that name the only documents the service answers, read and checked at start. A
manifest is Apollo's persisted query manifest format (`examples/persisted-query-manifest.json`
is the examples' own, written by `python -m api.front_door.trusted_documents examples`;
`explorer/persisted-query-manifest.json` the evidence explorer's, written by its build):

    {"format": "apollo-persisted-query-manifest", "version": 1,
     "operations": [{"id": "<sha256 of body>", "name": "…", "type": "query", "body": "…"}]}

Each body is the document as graphql-js prints it (graphql-core's `print_ast` prints the same),
which is what Apollo Client hashes.
"""

from __future__ import annotations

import json
import sys
from collections.abc import Sequence
from pathlib import Path

from graphql import OperationDefinitionNode, parse, print_ast

from api.front_door.persisted_queries import sha256_hex
from api.setting_kinds import SettingsError

MANIFEST_FORMAT = "apollo-persisted-query-manifest"
MANIFEST_NAME = "persisted-query-manifest.json"


def load_manifests(paths: Sequence[Path]) -> dict[str, str]:
    """hash → body of every document the manifests trust, together (the examples' and the
    explorer's, say: `GRAPHQL_TRUSTED_DOCUMENTS=a.json,b.json`). One bad file or entry stops
    start-up, naming the file and the entry: nothing is trusted from a manifest only in part.
    A document in two manifests is one document (its id is its body's hash)."""
    trusted: dict[str, str] = {}
    for path in paths:
        trusted.update(load_manifest(path))
    return trusted


def load_manifest(path: Path) -> dict[str, str]:
    """hash → body of a trusted-documents manifest; a SettingsError names what is wrong."""
    where = f"GRAPHQL_TRUSTED_DOCUMENTS: {path}"
    try:
        document = json.loads(path.read_text(encoding="utf-8"))
    except OSError as error:
        raise SettingsError(f"{where} cannot be read: {error.strerror or error}") from None
    except ValueError as error:
        raise SettingsError(f"{where} is not valid JSON: {error}") from None
    operations = document.get("operations") if isinstance(document, dict) else None
    if (
        not isinstance(document, dict)
        or document.get("format") != MANIFEST_FORMAT
        or not isinstance(operations, list)
    ):
        raise SettingsError(f'{where} must be a manifest of format "{MANIFEST_FORMAT}".')
    trusted = {}
    for number, operation in enumerate(operations, start=1):
        body = operation.get("body") if isinstance(operation, dict) else None
        if not isinstance(body, str) or operation.get("id") != sha256_hex(body):
            raise SettingsError(
                f"{where}: operation #{number} needs a `body` and its sha256 `id`; "
                "write the manifest again from its documents."
            )
        trusted[operation["id"]] = body
    return trusted


def manifest_of(texts: list[str]) -> dict[str, object]:
    """The manifest of these documents, each body printed as graphql-js prints it."""
    operations = []
    for text in texts:
        document = parse(text)
        body = print_ast(document)
        for definition in document.definitions:
            if isinstance(definition, OperationDefinitionNode):
                operations.append(
                    {
                        "id": sha256_hex(body),
                        "name": definition.name.value if definition.name else None,
                        "type": definition.operation.value,
                        "body": body,
                    }
                )
    operations.sort(key=lambda operation: str(operation["name"]))
    return {"format": MANIFEST_FORMAT, "version": 1, "operations": operations}


def write_manifest(folder: Path) -> Path:
    """`folder`'s *.graphql documents' manifest, written as `folder`/MANIFEST_NAME."""
    texts = [path.read_text(encoding="utf-8") for path in sorted(folder.glob("*.graphql"))]
    target = folder / MANIFEST_NAME
    target.write_text(json.dumps(manifest_of(texts), indent=2) + "\n", encoding="utf-8")
    return target


if __name__ == "__main__":
    print(write_manifest(Path(sys.argv[1] if len(sys.argv) > 1 else "examples")))
