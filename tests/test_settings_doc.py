"""Settings are declared once (api/settings.py `SETTINGS`, contract §9): docs/settings.md is
what the declarations render, every `Settings` field is filled by exactly one declaration, and
the defaults read from an empty environment are the declared ones."""

from __future__ import annotations

import dataclasses
import difflib

import pytest

from api.setting_kinds import Flag, SettingsError
from api.settings import SETTINGS, Settings
from api.settings_doc import DOCUMENT, render

# Declared separately, held together: `Settings.lexical` is one LexicalRule of both.
COMPOSED = {"lexical_fields": "lexical", "lexical_min_coverage": "lexical"}
# Worked out from OpenTelemetry's own OTEL_* variables (api/settings.py `traces_exporter`),
# which its SDK documents and reads; not one of the service's declarations.
FROM_OPENTELEMETRY = {"traces_exporter"}


def test_committed_settings_page_is_what_the_declarations_render() -> None:
    committed = DOCUMENT.read_text(encoding="utf-8")
    generated = render()
    diff = "".join(
        difflib.unified_diff(
            committed.splitlines(keepends=True),
            generated.splitlines(keepends=True),
            "docs/settings.md (committed)",
            "docs/settings.md (from api/settings.py)",
        )
    )
    assert committed == generated, (
        f"docs/settings.md drifted from SETTINGS; run `.venv/bin/python -m api.settings_doc`\n"
        f"{diff}"
    )


def test_every_settings_field_is_declared_once_and_every_declaration_fills_a_field() -> None:
    variables = [setting.variable for setting in SETTINGS]
    assert len(variables) == len(set(variables)), "a variable is declared twice"
    filled = [COMPOSED.get(setting.field, setting.field) for setting in SETTINGS]
    fields = {field.name for field in dataclasses.fields(Settings)} - FROM_OPENTELEMETRY
    assert set(filled) == fields
    assert len(filled) == len(fields) + 1  # the two lexical declarations fill one field


def test_an_empty_environment_gives_the_declared_defaults() -> None:
    settings = Settings.from_environ({})
    introspection = settings.graphql_introspection
    for setting in SETTINGS:
        if setting.field in COMPOSED:
            rule = settings.lexical
            value = rule.fields if setting.field == "lexical_fields" else rule.min_coverage
        else:
            value = getattr(settings, setting.field)
        kind = setting.kind
        expected = introspection if isinstance(kind, Flag) and kind.follows else kind.default
        assert value == expected, setting.variable


@pytest.mark.parametrize(
    ("variable", "value", "says"),
    [
        ("RETRIEVAL_RRF_K", "0", "RETRIEVAL_RRF_K=0 must be between 1 and 100000"),
        (
            "NEO4J_QUERY_TIMEOUT_SECONDS",
            "soon",
            "NEO4J_QUERY_TIMEOUT_SECONDS='soon' is not a number",
        ),
        ("EMBEDDER", "bert", "EMBEDDER='bert' is not one of: minilm, openai, hash"),
        ("GRAPHIQL_ENABLED", "maybe", "GRAPHIQL_ENABLED='maybe' is not a boolean"),
        ("RETRIEVAL_LEXICAL_FIELDS", "title", "RETRIEVAL_LEXICAL_FIELDS='title' is not one of"),
    ],
)
def test_a_bad_value_names_the_variable_and_what_it_accepts(
    variable: str, value: str, says: str
) -> None:
    with pytest.raises(SettingsError, match=says.replace("(", r"\(")):
        Settings.from_environ({variable: value})


def test_a_following_flag_takes_the_value_it_follows_unless_set() -> None:
    assert Settings.from_environ({"GRAPHQL_INTROSPECTION": "true"}).graphiql_enabled is True
    assert (
        Settings.from_environ(
            {"GRAPHQL_INTROSPECTION": "true", "GRAPHIQL_ENABLED": "false"}
        ).graphiql_enabled
        is False
    )
