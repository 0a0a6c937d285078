"""Settings (SPEC §9), read once from the environment at the edge, typed, failing fast.

Every setting has a safe default for local use. A bad value stops start-up with a message
that names the variable and what it accepts. Secrets are kept out of `repr` and logs.
"""

from __future__ import annotations

import json
import os
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field, fields
from pathlib import Path
from typing import TypeVar

from graph.records import GRAPH_OWNED_RELATION_TYPES
from retrieval.fusion import DEFAULT_RRF_K
from retrieval.lexical_rule import LEXICAL_FIELD_CHOICES, LexicalRule


class SettingsError(ValueError):
    """A setting is missing or invalid; the message names it and says what it accepts."""


def read_json_file(setting: str, path: Path) -> object:
    """The JSON document a setting names; a SettingsError names the setting and the file.

    json's own message quotes a line and column, never the content (which may hold keys).
    """
    try:
        return json.loads(path.read_text(encoding="utf-8"))
    except OSError as error:
        raise SettingsError(f"{setting}={path} cannot be read: {error.strerror or error}") from None
    except ValueError as error:
        raise SettingsError(f"{setting}={path} is not valid JSON: {error}") from None


class Secret(str):
    """A string that does not show itself in reprs or logs."""

    def __repr__(self) -> str:
        return "Secret('**********')"


N = TypeVar("N", int, float)


class _Reader:
    def __init__(self, environ: Mapping[str, str]) -> None:
        self.environ = environ

    def text(self, key: str, default: str | None = None) -> str | None:
        value = self.environ.get(key)
        return default if value is None or value == "" else value

    def choice(self, key: str, choices: tuple[str, ...], default: str | None) -> str | None:
        value = self.text(key, default)
        if value is not None and value not in choices:
            raise SettingsError(f"{key}={value!r} is not one of: {', '.join(choices)}")
        return value

    def integer(self, key: str, default: int, low: int, high: int) -> int:
        return self._bounded(key, default, low, high, int, "an integer")

    def number(self, key: str, default: float, low: float, high: float) -> float:
        return self._bounded(key, default, low, high, float, "a number")

    def _bounded(
        self, key: str, default: N, low: N, high: N, parse: Callable[[str], N], noun: str
    ) -> N:
        raw = self.text(key)
        if raw is None:
            return default
        try:
            value = parse(raw)
        except ValueError:
            raise SettingsError(f"{key}={raw!r} is not {noun}") from None
        if not low <= value <= high:
            raise SettingsError(f"{key}={value} must be between {low} and {high}")
        return value

    def flag(self, key: str, default: bool) -> bool:
        raw = self.text(key)
        if raw is None:
            return default
        if raw.lower() in ("1", "true", "yes", "on"):
            return True
        if raw.lower() in ("0", "false", "no", "off"):
            return False
        raise SettingsError(f"{key}={raw!r} is not a boolean (true/false)")

    def names(self, key: str) -> tuple[str, ...]:
        raw = self.text(key, "") or ""
        return tuple(part.strip() for part in raw.split(",") if part.strip())

    def lexical_fields(self, key: str) -> tuple[str, ...]:
        chosen = self.names(key) or ("name",)
        for choice in LEXICAL_FIELD_CHOICES:
            if sorted(chosen) == sorted(choice) and len(set(chosen)) == len(chosen):
                return choice
        accepted = " or ".join(",".join(choice) for choice in LEXICAL_FIELD_CHOICES)
        raise SettingsError(f"{key}={','.join(chosen)!r} is not one of: {accepted}")

    def traces_exporter(self) -> str | None:
        """OpenTelemetry's own variables decide (docs/operations.md): None is tracing off."""
        if self.flag("OTEL_SDK_DISABLED", False):
            return None
        endpoint = self.text("OTEL_EXPORTER_OTLP_TRACES_ENDPOINT") or self.text(
            "OTEL_EXPORTER_OTLP_ENDPOINT"
        )
        chosen = self.choice(
            "OTEL_TRACES_EXPORTER", ("otlp", "console", "none"), "otlp" if endpoint else "none"
        )
        return None if chosen == "none" else chosen

    def url(self, key: str) -> str | None:
        value = self.text(key)
        if value is not None and not value.startswith(("http://", "https://")):
            raise SettingsError(f"{key}={value!r} is not an http:// or https:// URL")
        return value

    def path(self, key: str) -> Path | None:
        raw = self.text(key)
        return Path(raw).expanduser() if raw else None

    def secret(self, key: str) -> Secret | None:
        raw = self.text(key)
        return Secret(raw) if raw else None


@dataclass(frozen=True)
class Settings:
    # Neo4j
    neo4j_uri: str = "bolt://127.0.0.1:7687"
    neo4j_user: str = "neo4j"
    neo4j_password: Secret | None = field(default=None, repr=False)
    neo4j_database: str | None = None
    query_timeout_seconds: float = 10.0
    # Retrieval
    rrf_k: int = DEFAULT_RRF_K
    # RETRIEVAL_LEXICAL_FIELDS and RETRIEVAL_LEXICAL_MIN_COVERAGE (docs/retrieval-quality.md)
    lexical: LexicalRule = field(default_factory=LexicalRule)
    graph_owned_relation_types: tuple[str, ...] = GRAPH_OWNED_RELATION_TYPES
    # Embedder (SPEC §9)
    embedder: str = "minilm"
    embedder_url: str | None = None
    embedder_model: str | None = None
    embedder_dim: int | None = None
    embedder_api_key: Secret | None = field(default=None, repr=False)
    # Where semantic entity reads come from (seed steps 3–4)
    vector_store: str = "neo4j"
    qdrant_path: Path | None = None
    # A Qdrant server (docs/operations.md); when set, QDRANT_PATH is not used.
    qdrant_url: str | None = None
    qdrant_api_key: Secret | None = field(default=None, repr=False)
    vector_store_max_results: int = 1000
    # Auth (SPEC §8); None: not set explicitly (allowed only on loopback, meaning `none`)
    auth_mode: str | None = None
    auth_jwt_secret: Secret | None = field(default=None, repr=False)
    auth_jwks_file: Path | None = None
    auth_api_keys_file: Path | None = None
    auth_jwt_audience: str | None = None
    auth_jwt_issuer: str | None = None
    # Clock skew tolerated on `exp`, `nbf` and `iat` between the token issuer and this host.
    auth_jwt_leeway_seconds: float = 30.0
    # Federation: when set, `_service` and `_entities` answer only requests carrying it in
    # `X-Gateway-Token` (docs/security.md).
    federation_gateway_token: Secret | None = field(default=None, repr=False)
    # GraphQL hardening (docs/security.md lists every limit and why its default is what it is)
    graphql_introspection: bool = False
    # "Did you mean …?" in error messages reveals the schema as introspection would, so it
    # follows GRAPHQL_INTROSPECTION unless set.
    graphql_field_suggestions: bool = False
    graphql_max_depth: int = 8
    graphql_max_aliases: int = 30
    graphql_max_tokens: int = 1000
    http_max_body_bytes: int = 1_048_576
    # The GraphiQL page at `GET /graphql` (HTML); without introspection it could not load the
    # schema, so it follows GRAPHQL_INTROSPECTION unless set.
    graphiql_enabled: bool = False
    request_timeout_seconds: float = 30.0
    # Operations (docs/operations.md). Tracing: the exporter OTEL_TRACES_EXPORTER names, or
    # `otlp` when only an OTLP endpoint is set; None: off.
    traces_exporter: str | None = None
    # GET /metrics (api/metrics.py): off unless METRICS_ENABLED; with METRICS_TOKEN it answers
    # only `Authorization: Bearer <token>`, without it only loopback clients.
    metrics_enabled: bool = False
    metrics_token: Secret | None = field(default=None, repr=False)
    # One line per request (api/request_log.py) and every other log line: `json` or `text`.
    log_format: str = "text"

    @classmethod
    def from_environ(cls, environ: Mapping[str, str] | None = None) -> Settings:
        read = _Reader(os.environ if environ is None else environ)
        extra_owned = read.names("GRAPH_OWNED_RELATION_TYPES")
        embedder = read.choice("EMBEDDER", ("minilm", "openai", "hash"), "minilm") or "minilm"
        raw_dim = read.text("EMBEDDER_DIM")
        introspection = read.flag("GRAPHQL_INTROSPECTION", False)
        return cls(
            neo4j_uri=read.text("NEO4J_URI", cls.neo4j_uri) or cls.neo4j_uri,
            neo4j_user=read.text("NEO4J_USER", cls.neo4j_user) or cls.neo4j_user,
            neo4j_password=read.secret("NEO4J_PASSWORD"),
            neo4j_database=read.text("NEO4J_DATABASE"),
            query_timeout_seconds=read.number("NEO4J_QUERY_TIMEOUT_SECONDS", 10.0, 0.1, 3600),
            rrf_k=read.integer("RETRIEVAL_RRF_K", DEFAULT_RRF_K, 1, 100_000),
            lexical=LexicalRule(
                fields=read.lexical_fields("RETRIEVAL_LEXICAL_FIELDS"),
                min_coverage=read.number("RETRIEVAL_LEXICAL_MIN_COVERAGE", 0.5, 0.0, 1.0),
            ),
            graph_owned_relation_types=tuple(
                dict.fromkeys(GRAPH_OWNED_RELATION_TYPES + extra_owned)
            ),
            embedder=embedder,
            embedder_url=read.text("EMBEDDER_URL"),
            embedder_model=read.text("EMBEDDER_MODEL"),
            embedder_dim=read.integer("EMBEDDER_DIM", 0, 1, 4096) if raw_dim else None,
            embedder_api_key=read.secret("EMBEDDER_API_KEY"),
            vector_store=read.choice("VECTOR_STORE", ("neo4j", "qdrant"), "neo4j") or "neo4j",
            qdrant_path=read.path("QDRANT_PATH"),
            qdrant_url=read.url("QDRANT_URL"),
            qdrant_api_key=read.secret("QDRANT_API_KEY"),
            vector_store_max_results=read.integer("VECTOR_STORE_MAX_RESULTS", 1000, 1, 1_000_000),
            auth_mode=read.choice("AUTH_MODE", ("jwt", "apikeys", "none"), None),
            auth_jwt_secret=read.secret("AUTH_JWT_SECRET"),
            auth_jwks_file=read.path("AUTH_JWKS_FILE"),
            auth_api_keys_file=read.path("AUTH_API_KEYS_FILE"),
            auth_jwt_audience=read.text("AUTH_JWT_AUDIENCE"),
            auth_jwt_issuer=read.text("AUTH_JWT_ISSUER"),
            auth_jwt_leeway_seconds=read.number("AUTH_JWT_LEEWAY_SECONDS", 30.0, 0, 300),
            federation_gateway_token=read.secret("FEDERATION_GATEWAY_TOKEN"),
            graphql_introspection=introspection,
            graphql_field_suggestions=read.flag("GRAPHQL_FIELD_SUGGESTIONS", introspection),
            graphql_max_depth=read.integer("GRAPHQL_MAX_DEPTH", 8, 1, 100),
            graphql_max_aliases=read.integer("GRAPHQL_MAX_ALIASES", 30, 0, 1000),
            graphql_max_tokens=read.integer("GRAPHQL_MAX_TOKENS", 1000, 50, 1_000_000),
            http_max_body_bytes=read.integer(
                "HTTP_MAX_BODY_BYTES", 1_048_576, 1024, 100 * 1_048_576
            ),
            graphiql_enabled=read.flag("GRAPHIQL_ENABLED", introspection),
            request_timeout_seconds=read.number("REQUEST_TIMEOUT_SECONDS", 30.0, 0.1, 3600),
            traces_exporter=read.traces_exporter(),
            metrics_enabled=read.flag("METRICS_ENABLED", False),
            metrics_token=read.secret("METRICS_TOKEN"),
            log_format=read.choice("LOG_FORMAT", ("text", "json"), "text") or "text",
        )

    def public_summary(self) -> dict[str, object]:
        """Every setting but the secrets, for the start-up log."""
        return {
            f.name: getattr(self, f.name)
            for f in fields(self)
            if not isinstance(getattr(self, f.name), Secret)
        }
