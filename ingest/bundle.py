"""Reading a bundle file (contract §10) line by line, checking all that needs no database.

contract §10: JSON Lines, one document version per line, each line one job; an invalid line
is reported with its number and nothing of it is written. `load --workspace W` holds every
line to W: a line naming another workspace is invalid, a line naming none takes W. A line may
also refer to entities and passages already stored; those references cannot be checked here,
so they come back as the version's external references for the loader to look up.

The file is read one line at a time, so a bundle of any size is read in bounded memory (a
single line is held whole: it is one job). Blank lines are skipped. Ids are never repaired:
contract §2 says every id is a canonical lowercase UUID, and a bundle is its producer's word.

    >>> import json
    >>> parse_line(json.dumps({"document": {"id": "x", "workspace": "w"}, "passages": []}))
    LineError(reason='document.id: "x" is not a canonical lowercase UUID')
"""

from __future__ import annotations

import json
from collections.abc import Collection, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from contract.graph_owned import GRAPH_OWNED_LABELS, GRAPH_OWNED_RELATION_TYPES
from contract.relation_claims import DESCRIPTION, WEIGHT
from ingest.bundle_checks import MISSING, LineChecker
from ingest.document_version import (
    DocumentInfo,
    DocumentVersion,
    EntityInput,
    PassageInput,
    PropertyValue,
    RelationInput,
)

_BOM = b"\xef\xbb\xbf"

# The keys each object of a line may have (contract §10); which are required, the checks say.
_LINE_FIELDS = ("document", "passages", "entities", "relations")
_DOCUMENT_FIELDS = ("id", "workspace", "title", "uri")
_PASSAGE_FIELDS = ("id", "position", "text", "embedding")
_ENTITY_FIELDS = ("id", "labels", "name", "description", "mentions", "embedding")
_RELATION_FIELDS = (
    "id",
    "type",
    "source",
    "target",
    "passageIds",
    "description",
    "weight",
    "properties",
)


@dataclass(frozen=True, slots=True)
class LineError:
    """Why a line cannot be loaded: field paths and what is wrong with them."""

    reason: str


def read_bundle(
    path: Path,
    *,
    dimensions: int | None = None,
    graph_owned_relation_types: Collection[str] = GRAPH_OWNED_RELATION_TYPES,
    workspace: str | None = None,
) -> Iterator[tuple[int, DocumentVersion | LineError]]:
    """Yield `(line number, version or error)` for each non-blank line, numbers from 1.

    `dimensions`, when given, is the length every embedding must have (the vector indexes').
    `workspace`, when given, is the one workspace every line is held to (`load --workspace`):
    a line naming none takes it, a line naming another is an error.
    """
    with path.open("rb") as handle:
        for number, raw in enumerate(handle, start=1):
            if number == 1:
                raw = raw.removeprefix(_BOM)
            if not raw.strip():
                continue
            try:
                text = raw.rstrip(b"\r\n").decode("utf-8")
            except UnicodeDecodeError as error:
                yield number, LineError(f"not valid UTF-8 (byte {error.start + 1} of the line)")
                continue
            yield (
                number,
                parse_line(
                    text,
                    dimensions=dimensions,
                    graph_owned_relation_types=graph_owned_relation_types,
                    workspace=workspace,
                ),
            )


def parse_line(
    text: str,
    *,
    dimensions: int | None = None,
    graph_owned_relation_types: Collection[str] = GRAPH_OWNED_RELATION_TYPES,
    workspace: str | None = None,
) -> DocumentVersion | LineError:
    """One bundle line as a version, or every problem found in it (the first few, named);
    `workspace` as for `read_bundle`."""
    try:
        value = json.loads(text, parse_constant=_reject_constant, object_pairs_hook=_unique_keys)
    except json.JSONDecodeError as error:
        # Its own message says "line 1", which would contradict the bundle's line number.
        return LineError(f"invalid JSON at character {error.pos + 1}: {error.msg}")
    except ValueError as error:
        return LineError(f"invalid JSON: {error}")
    except RecursionError:
        return LineError("invalid JSON: nested too deeply")
    check = LineChecker(dimensions, GRAPH_OWNED_LABELS, graph_owned_relation_types)
    version = _version(check, value, workspace)
    return version if check.ok else LineError(check.reason())


def _version(check: LineChecker, value: object, held: str | None) -> DocumentVersion:
    line = check.fields(value, "", _LINE_FIELDS)
    document = check.fields(line["document"], "document", _DOCUMENT_FIELDS)
    info = DocumentInfo(
        id=check.uuid(document["id"], "document.id"),
        workspace=check.workspace(document["workspace"], "document.workspace", held),
        title=check.optional_text(document["title"], "document.title"),
        uri=check.optional_text(document["uri"], "document.uri"),
    )
    # `passages` is required even when empty: a line without it would silently replace the
    # document's current text with nothing. Entities and relations are optional.
    passages = [
        _passage(check, item, path)
        for item, path in check.items(line["passages"], "passages", required=True)
    ]
    entities = [
        _entity(check, item, path)
        for item, path in check.items(line["entities"], "entities", required=False)
    ]
    relations = [
        _relation(check, item, path)
        for item, path in check.items(line["relations"], "relations", required=False)
    ]
    check.unique([(p.id, f"passages[{i}].id") for i, p in enumerate(passages)])
    check.unique([(p.position, f"passages[{i}].position") for i, p in enumerate(passages)])
    check.unique([(e.id, f"entities[{i}].id") for i, e in enumerate(entities)])
    check.unique([(r.id, f"relations[{i}].id") for i, r in enumerate(relations)])
    return DocumentVersion(info, passages, entities, relations)


def _passage(check: LineChecker, value: object, path: str) -> PassageInput:
    item = check.fields(value, path, _PASSAGE_FIELDS)
    return PassageInput(
        id=check.uuid(item["id"], f"{path}.id"),
        position=check.position(item["position"], f"{path}.position"),
        text=check.text(item["text"], f"{path}.text"),
        embedding=check.embedding(item["embedding"], f"{path}.embedding"),
    )


def _entity(check: LineChecker, value: object, path: str) -> EntityInput:
    item = check.fields(value, path, _ENTITY_FIELDS)
    return EntityInput(
        id=check.uuid(item["id"], f"{path}.id"),
        labels=check.labels(item["labels"], f"{path}.labels"),
        name=check.text(item["name"], f"{path}.name"),
        description=check.optional_text(item["description"], f"{path}.description"),
        mentions=check.uuids(item["mentions"], f"{path}.mentions"),
        embedding=check.embedding(item["embedding"], f"{path}.embedding"),
    )


def _relation(check: LineChecker, value: object, path: str) -> RelationInput:
    item = check.fields(value, path, _RELATION_FIELDS)
    passage_ids = item["passageIds"]
    return RelationInput(
        id=check.uuid(item["id"], f"{path}.id"),
        type=check.relation_type(item["type"], f"{path}.type"),
        source=check.uuid(item["source"], f"{path}.source"),
        target=check.uuid(item["target"], f"{path}.target"),
        # Absent, null and empty mean the same: the relation is a path (contract §2).
        passage_ids=()
        if passage_ids is None or passage_ids is MISSING
        else check.uuids(passage_ids, f"{path}.passageIds"),
        properties=_relation_properties(check, item, path),
    )


def _relation_properties(
    check: LineChecker, item: dict[str, Any], path: str
) -> dict[str, PropertyValue]:
    """The relation's `properties`, with its `description` and `weight` (contract §10: what
    the source says about it, contract/relation_claims.py) stored among them under those
    names; a claim given in both places is refused rather than one silently winning."""
    properties = check.properties(item["properties"], f"{path}.properties")
    for name in (DESCRIPTION, WEIGHT):
        claim = check.claim(name, item[name], f"{path}.{name}")
        if claim and name in properties:
            check.fail(f"{path}.{name}", f"is given again in {path}.properties.{name}")
        properties = {**properties, **claim}
    return properties


def _reject_constant(name: str) -> None:
    # Python's json accepts NaN and Infinity; JSON does not, and neither can a vector index.
    raise ValueError(f"{name} is not a JSON value")


def _unique_keys(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
    # A repeated key would silently keep its last value; say so instead.
    result: dict[str, Any] = {}
    for key, value in pairs:
        if key in result:
            raise ValueError(f'the key "{key}" appears twice in one object')
        result[key] = value
    return result
