"""Settings (contract §9), read once from the environment at the edge, typed, failing fast.

Every setting has a safe default for local use. A bad value stops start-up with a message
that names the variable and what it accepts. Secrets are kept out of `repr` and logs.
"""

from __future__ import annotations

import json
import os
from collections.abc import Mapping
from dataclasses import dataclass, field, fields
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit, urlunsplit

from api.setting_kinds import (
    Choice,
    FilePath,
    FilePaths,
    Flag,
    Integer,
    Names,
    Number,
    Origins,
    SecretText,
    Setting,
    Text,
    Url,
    Workspaces,
)
from api.setting_kinds import Secret as Secret
from api.setting_kinds import SettingsError as SettingsError
from contract.graph_owned import GRAPH_OWNED_RELATION_TYPES
from contract.query_costs import DEFAULT_MAX_COST
from retrieval.fusion import DEFAULT_RRF_K
from retrieval.lexical_rule import LEXICAL_FIELD_CHOICES, LexicalRule

# The shortest token a client may present (`FEDERATION_GATEWAY_TOKEN`, `METRICS_TOKEN`).
MIN_TOKEN_LENGTH = 32


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


# Every setting, once: variable, `Settings` field, kind (type, range, default), meaning.
# docs/settings.md is rendered from this list (`python -m api.settings_doc`); a test fails when
# they drift. A new setting is one line here and its typed field in `Settings` below.
SETTINGS: tuple[Setting, ...] = (
    # Neo4j
    Setting(
        "NEO4J_URI", "neo4j_uri", Text("bolt://127.0.0.1:7687"), "Bolt URI of the Neo4j server."
    ),
    Setting("NEO4J_USER", "neo4j_user", Text("neo4j"), "Neo4j user name."),
    Setting(
        "NEO4J_PASSWORD",
        "neo4j_password",
        SecretText(),
        "Neo4j password; unset: no authentication.",
    ),
    Setting(
        "NEO4J_DATABASE",
        "neo4j_database",
        Text(),
        "Neo4j database; unset: the server's default database.",
    ),
    Setting(
        "SOURCE_NEO4J_USER",
        "source_neo4j_user",
        Text("neo4j"),
        "User name for the Neo4j that `load --from` reads a graph from (docs/import-neo4j.md).",
    ),
    Setting(
        "SOURCE_NEO4J_PASSWORD",
        "source_neo4j_password",
        SecretText(),
        "Password for the Neo4j that `load --from` reads; unset: no authentication.",
    ),
    Setting(
        "NEO4J_QUERY_TIMEOUT_SECONDS",
        "query_timeout_seconds",
        Number(10.0, 0.1, 3600.0),
        "Time limit of each Cypher statement, enforced by Neo4j (then BACKEND_UNAVAILABLE).",
    ),
    Setting(
        "NEO4J_PLAN_TIMEOUT_SECONDS",
        "plan_timeout_seconds",
        Number(60.0, 0.1, 3600.0),
        "Time limit of planning a statement before its first run (EXPLAIN), apart from the "
        'statement\'s own limit (docs/operations.md, "Plans").',
    ),
    Setting(
        "PLAN_WARMING",
        "plan_warming",
        Flag(True),
        "Plan every statement requests send before `/readyz` says ready, again after Neo4j "
        "returns or its indexes change, and plan a statement before its first run.",
    ),
    # Retrieval (docs/search.md, docs/retrieval-quality.md)
    Setting(
        "RETRIEVAL_RRF_K",
        "rrf_k",
        Integer(DEFAULT_RRF_K, 1, 100_000),
        "The constant k of reciprocal rank fusion in HYBRID mode: score = sum of 1/(k + rank).",
    ),
    Setting(
        "RETRIEVAL_LEXICAL_FIELDS",
        "lexical_fields",
        Names(("name",), choices=LEXICAL_FIELD_CHOICES),
        "Entity properties the FULLTEXT indexes cover and the lexical search reads.",
    ),
    Setting(
        "RETRIEVAL_LEXICAL_MIN_COVERAGE",
        "lexical_min_coverage",
        Number(0.5, 0.0, 1.0),
        "Share of the query's content words a lexical candidate must hold to count.",
    ),
    Setting(
        "GRAPH_OWNED_RELATION_TYPES",
        "graph_owned_relation_types",
        Names(GRAPH_OWNED_RELATION_TYPES, always=GRAPH_OWNED_RELATION_TYPES),
        "More relationship types owned by the graph's structure: never walked.",
    ),
    # Embedder (contract §9)
    Setting(
        "EMBEDDER",
        "embedder",
        Choice(("minilm", "openai", "hash"), "minilm"),
        "What embeds queries and missing vectors (contract §9).",
    ),
    Setting(
        "EMBEDDER_URL",
        "embedder_url",
        Text(),
        "`openai`: base URL of the `/v1/embeddings` endpoint.",
    ),
    Setting(
        "EMBEDDER_MODEL",
        "embedder_model",
        Text(),
        "`openai`: the model name sent with each request.",
    ),
    Setting(
        "EMBEDDER_DIM",
        "embedder_dim",
        Integer(None, 1, 4096),
        "`openai` and `hash`: the vectors' dimension; must match the vector indexes.",
    ),
    Setting(
        "EMBEDDER_API_KEY",
        "embedder_api_key",
        SecretText(),
        "`openai`: the bearer token sent to the endpoint.",
    ),
    Setting(
        "EMBEDDER_THREADS",
        "embedder_threads",
        Integer(None, 1, 64),
        "`minilm`: batches of texts embedded at once, one core each; unset: min(2, cores).",
    ),
    Setting(
        "EMBEDDER_PRECISION",
        "embedder_precision",
        Choice(("fp32", "int8"), "fp32"),
        "`minilm`: `fp32`, or `int8` for the dynamically quantised graph (docs/performance.md).",
    ),
    # Where semantic entity reads come from (seed steps 3–4)
    Setting(
        "VECTOR_STORE",
        "vector_store",
        Choice(("neo4j", "qdrant"), "neo4j"),
        "Where semantic entity reads come from: Neo4j's vector indexes, or Qdrant.",
    ),
    Setting("QDRANT_PATH", "qdrant_path", FilePath(), "`qdrant`: the folder of its local store."),
    Setting(
        "QDRANT_URL",
        "qdrant_url",
        Url(),
        "`qdrant`: a Qdrant server (docs/operations.md); when set, QDRANT_PATH is not used.",
    ),
    Setting("QDRANT_API_KEY", "qdrant_api_key", SecretText(), "`qdrant`: the server's API key."),
    Setting(
        "VECTOR_STORE_MAX_RESULTS",
        "vector_store_max_results",
        Integer(1000, 1, 1_000_000),
        "The most results one read of the external vector store may return.",
    ),
    # Auth (contract §8, docs/security.md)
    Setting(
        "AUTH_MODE",
        "auth_mode",
        Choice(("jwt", "apikeys", "none"), None),
        "How callers prove who they are; unset: `none`, only while serving on loopback.",
    ),
    Setting(
        "AUTH_JWT_SECRET",
        "auth_jwt_secret",
        SecretText(),
        "`jwt`: the HS256 secret, at least 32 bytes.",
    ),
    Setting(
        "AUTH_JWKS_FILE",
        "auth_jwks_file",
        FilePath(),
        "`jwt`: a JWK Set file of public keys (RS256, ES256), chosen by the token's `kid`.",
    ),
    Setting(
        "AUTH_API_KEYS_FILE",
        "auth_api_keys_file",
        FilePath(),
        "`apikeys`: a JSON object from each key to its list of workspaces.",
    ),
    Setting(
        "AUTH_JWT_AUDIENCE", "auth_jwt_audience", Text(), "`jwt`: when set, tokens need this `aud`."
    ),
    Setting(
        "AUTH_JWT_ISSUER", "auth_jwt_issuer", Text(), "`jwt`: when set, tokens need this `iss`."
    ),
    Setting(
        "AUTH_JWT_LEEWAY_SECONDS",
        "auth_jwt_leeway_seconds",
        Number(30.0, 0.0, 300.0),
        "`jwt`: clock skew tolerated on `exp`, `nbf` and `iat` between the issuer and this host.",
    ),
    Setting(
        "FEDERATION_GATEWAY_TOKEN",
        "federation_gateway_token",
        SecretText(min_length=MIN_TOKEN_LENGTH),
        "When set, `_service` and `_entities` need it in `X-Gateway-Token`.",
    ),
    # GraphQL and HTTP limits (docs/security.md says why each default is what it is)
    Setting(
        "GRAPHQL_INTROSPECTION",
        "graphql_introspection",
        Flag(False),
        "Whether `__schema` and `__type` are answered.",
    ),
    Setting(
        "GRAPHQL_FIELD_SUGGESTIONS",
        "graphql_field_suggestions",
        Flag(follows="GRAPHQL_INTROSPECTION"),
        'Whether error messages say "Did you mean …?" (it reveals the schema).',
    ),
    Setting(
        "GRAPHQL_MAX_DEPTH",
        "graphql_max_depth",
        Integer(8, 1, 100),
        "Deepest nesting of selections a document may have.",
    ),
    Setting(
        "GRAPHQL_MAX_ALIASES",
        "graphql_max_aliases",
        Integer(30, 0, 1000),
        "Most aliases a document may use.",
    ),
    Setting(
        "GRAPHQL_MAX_TOKENS",
        "graphql_max_tokens",
        Integer(1000, 50, 1_000_000),
        "Most lexical tokens a document may have; parsing stops there.",
    ),
    Setting(
        "GRAPHQL_MAX_DIRECTIVES_PER_FIELD",
        "graphql_max_directives_per_field",
        Integer(4, 1, 100),
        "Most directives on one field, fragment or operation (repeated directives cost work).",
    ),
    Setting(
        "GRAPHQL_MAX_DIRECTIVES",
        "graphql_max_directives",
        Integer(50, 1, 10_000),
        "Most directives in one document.",
    ),
    # The front door (docs/operations.md, "The front door"; api/front_door/door.py)
    Setting(
        "GRAPHQL_MAX_COST",
        "graphql_max_cost",
        Integer(DEFAULT_MAX_COST, 1, 100_000_000),
        "Highest static cost of one request (api/front_door/query_cost.py); above it "
        "COST_LIMIT_EXCEEDED.",
    ),
    Setting(
        "GRAPHQL_MAX_CONCURRENT_OPERATIONS",
        "graphql_max_concurrent_operations",
        Integer(None, 1, 10_000),
        (
            "Operations this process executes at once; unset: 4 per core, shared by the"
            " processes of `serve --workers` (at least 4 each)."
        ),
    ),
    Setting(
        "GRAPHQL_QUEUE_LENGTH",
        "graphql_queue_length",
        Integer(None, 0, 100_000),
        "Operations that may wait for a slot; more are OVERLOADED; unset: half the slots.",
    ),
    Setting(
        "GRAPHQL_QUEUE_WAIT_SECONDS",
        "graphql_queue_wait_seconds",
        Number(5.0, 0.0, 3600.0),
        "Longest wait for a slot; then the request is OVERLOADED with `Retry-After`.",
    ),
    Setting(
        "GRAPHQL_RATE_LIMIT_PER_MINUTE",
        "graphql_rate_limit_per_minute",
        Integer(None, 1, 1_000_000_000),
        "Cost points each caller may spend per minute (at least GRAPHQL_MAX_COST); unset: off.",
    ),
    Setting(
        "GRAPHQL_PERSISTED_QUERIES",
        "graphql_persisted_queries",
        Flag(True),
        "Whether Apollo's automatic persisted queries are answered (hashes of documents seen).",
    ),
    Setting(
        "GRAPHQL_TRUSTED_DOCUMENTS",
        "graphql_trusted_documents",
        FilePaths(),
        "Persisted query manifests (one or several); when set, only their documents are answered.",
    ),
    Setting(
        "FRONT_DOOR_STORE",
        "front_door_store",
        Url(schemes=("redis", "rediss", "unix"), quoted=False),
        "A Redis server where every process and replica keeps the rate buckets, refusal turns "
        'and persisted queries (docs/operations.md, "What is shared where"); unset: each '
        "process keeps its own.",
    ),
    Setting(
        "FRONT_DOOR_STORE_TIMEOUT_SECONDS",
        "front_door_store_timeout_seconds",
        Number(0.25, 0.01, 10.0),
        "Longest wait for one call of FRONT_DOOR_STORE (below REQUEST_TIMEOUT_SECONDS); then "
        "the request is answered from this process's own limits (contract §7).",
    ),
    Setting(
        "HTTP_MAX_BODY_BYTES",
        "http_max_body_bytes",
        Integer(1_048_576, 1024, 100 * 1_048_576),
        "Largest request body, in bytes (413 beyond it).",
    ),
    Setting(
        "GRAPHIQL_ENABLED",
        "graphiql_enabled",
        Flag(follows="GRAPHQL_INTROSPECTION"),
        "Whether a browser asking `/graphql` for HTML gets GraphiQL.",
    ),
    Setting(
        "EXPLORER_ENABLED",
        "explorer_enabled",
        Flag(False),
        "Whether `/explore` serves the evidence explorer (docs/explorer.md).",
    ),
    Setting(
        "REQUEST_TIMEOUT_SECONDS",
        "request_timeout_seconds",
        Number(30.0, 0.1, 3600.0),
        "Time until the answer starts; then the request is BACKEND_UNAVAILABLE.",
    ),
    # Operations (docs/operations.md); tracing follows OpenTelemetry's own OTEL_* variables
    Setting(
        "METRICS_ENABLED",
        "metrics_enabled",
        Flag(False),
        "Whether `GET /metrics` answers (Prometheus text format).",
    ),
    Setting(
        "METRICS_TOKEN",
        "metrics_token",
        SecretText(min_length=MIN_TOKEN_LENGTH),
        "When set, `/metrics` answers only `Authorization: Bearer <token>`; unset: loopback only.",
    ),
    Setting(
        "LOG_FORMAT",
        "log_format",
        Choice(("text", "json"), "text"),
        "One line per request and every other log line: `json` or `text`.",
    ),
    # MCP (contract §12, docs/mcp.md)
    Setting(
        "MCP_WORKSPACES",
        "mcp_workspaces",
        Workspaces(),
        "The workspaces `evidencegraph mcp` (stdio) grants; required unless AUTH_MODE=none.",
    ),
    Setting(
        "MCP_HTTP_ENABLED",
        "mcp_http_enabled",
        Flag(True, off_when="GRAPHQL_TRUSTED_DOCUMENTS"),
        "Whether `/mcp` serves the MCP tools (docs/security.md, trusted documents and MCP).",
    ),
    Setting(
        "MCP_MAX_RESULT_CHARS",
        "mcp_max_result_chars",
        Integer(20_000, 2_000, 10_000_000),
        "The most characters of one MCP tool result's text, what a model reads (its structured "
        "content holds the same items, without passage bodies).",
    ),
    Setting(
        "MCP_MAX_STREAMS_PER_CALLER",
        "mcp_max_streams_per_caller",
        Integer(4, 0, 10_000),
        "Event streams (GET `/mcp`) one caller may hold open at once; more are RATE_LIMITED; "
        "0: none (405).",
    ),
    Setting(
        "MCP_MAX_STREAM_SECONDS",
        "mcp_max_stream_seconds",
        Number(300.0, 0.1, 86_400.0),
        "How long an event stream (GET `/mcp`) stays open; then the service ends it.",
    ),
    Setting(
        "CORS_ALLOW_ORIGINS",
        "cors_allow_origins",
        Origins(),
        "Web origins whose pages may call `/graphql` from a browser (CORS; unset: no CORS "
        "header); `/mcp` accepts these and loopback origins, and refuses any other with 403.",
    ),
)


def traces_exporter(environ: Mapping[str, str]) -> str | None:
    """OpenTelemetry's own variables decide (docs/operations.md): the exporter
    OTEL_TRACES_EXPORTER names, or `otlp` when only an OTLP endpoint is set; None is off."""
    if Flag(False).parse("OTEL_SDK_DISABLED", environ.get("OTEL_SDK_DISABLED") or "false"):
        return None
    endpoint = environ.get("OTEL_EXPORTER_OTLP_TRACES_ENDPOINT") or environ.get(
        "OTEL_EXPORTER_OTLP_ENDPOINT"
    )
    chosen = Choice(("otlp", "console", "none"), None).parse(
        "OTEL_TRACES_EXPORTER",
        environ.get("OTEL_TRACES_EXPORTER") or ("otlp" if endpoint else "none"),
    )
    return None if chosen == "none" else chosen


@dataclass(frozen=True)
class Settings:
    """The settings of one process, each filled from its `SETTINGS` line (defaults there)."""

    # Neo4j
    neo4j_uri: str
    neo4j_user: str
    neo4j_password: Secret | None = field(repr=False)
    neo4j_database: str | None
    source_neo4j_user: str
    source_neo4j_password: Secret | None = field(repr=False)
    query_timeout_seconds: float
    plan_timeout_seconds: float
    plan_warming: bool
    # Retrieval: RETRIEVAL_LEXICAL_FIELDS and RETRIEVAL_LEXICAL_MIN_COVERAGE make `lexical`
    rrf_k: int
    lexical: LexicalRule
    graph_owned_relation_types: tuple[str, ...]
    # Embedder
    embedder: str
    embedder_url: str | None
    embedder_model: str | None
    embedder_dim: int | None
    embedder_api_key: Secret | None = field(repr=False)
    embedder_threads: int | None
    embedder_precision: str
    # Where semantic entity reads come from
    vector_store: str
    qdrant_path: Path | None
    qdrant_url: str | None
    qdrant_api_key: Secret | None = field(repr=False)
    vector_store_max_results: int
    # Auth; auth_mode None: not set explicitly (allowed only on loopback, meaning `none`)
    auth_mode: str | None
    auth_jwt_secret: Secret | None = field(repr=False)
    auth_jwks_file: Path | None
    auth_api_keys_file: Path | None
    auth_jwt_audience: str | None
    auth_jwt_issuer: str | None
    auth_jwt_leeway_seconds: float
    federation_gateway_token: Secret | None = field(repr=False)
    # GraphQL and HTTP limits
    graphql_introspection: bool
    graphql_field_suggestions: bool
    graphql_max_depth: int
    graphql_max_aliases: int
    graphql_max_tokens: int
    graphql_max_directives_per_field: int
    graphql_max_directives: int
    graphql_max_cost: int
    graphql_max_concurrent_operations: int | None
    graphql_queue_length: int | None
    graphql_queue_wait_seconds: float
    graphql_rate_limit_per_minute: int | None
    graphql_persisted_queries: bool
    graphql_trusted_documents: tuple[Path, ...] | None
    front_door_store: str | None = field(repr=False)  # its URL may carry a password
    front_door_store_timeout_seconds: float
    http_max_body_bytes: int
    graphiql_enabled: bool
    explorer_enabled: bool
    request_timeout_seconds: float
    # Operations; traces_exporter is worked out from OpenTelemetry's variables (None: off)
    metrics_enabled: bool
    metrics_token: Secret | None = field(repr=False)
    log_format: str
    traces_exporter: str | None
    # MCP
    mcp_workspaces: tuple[str, ...] | None
    mcp_http_enabled: bool
    mcp_max_result_chars: int
    mcp_max_streams_per_caller: int
    mcp_max_stream_seconds: float
    cors_allow_origins: tuple[str, ...]

    @classmethod
    def from_environ(cls, environ: Mapping[str, str] | None = None) -> Settings:
        environ = os.environ if environ is None else environ
        by_variable: dict[str, object] = {}
        values: dict[str, Any] = {}
        for setting in SETTINGS:
            value = setting.read(environ, by_variable)
            by_variable[setting.variable] = values[setting.field] = value
        values["traces_exporter"] = traces_exporter(environ)
        values["lexical"] = LexicalRule(
            fields=values.pop("lexical_fields"), min_coverage=values.pop("lexical_min_coverage")
        )
        return cls(**values)

    def public_summary(self) -> dict[str, object]:
        """Every setting but the secrets, for the start-up log; a URL without its user info
        and query (`redacted_url`)."""
        return {
            f.name: redacted_url(value) if isinstance(value, str) else value
            for f in fields(self)
            if not isinstance(value := getattr(self, f.name), Secret)
        }


def redacted_url(value: str) -> str:
    """`value` with the user info and the query of a URL it holds replaced by `***`: a URL
    setting may carry a password (`bolt://user:secret@host`) or a key (`?key=…`), and logs are
    read by more people than settings are. Anything that is not such a URL is returned as is.

    >>> redacted_url("bolt://neo4j:secret@db:7687"), redacted_url("https://e.test/v1?key=k1")
    ('bolt://***@db:7687', 'https://e.test/v1?***')
    >>> redacted_url("bolt://127.0.0.1:7687"), redacted_url("name,description")
    ('bolt://127.0.0.1:7687', 'name,description')
    """
    parts = urlsplit(value)
    if not (parts.scheme and parts.netloc):
        return value
    netloc = "***@" + parts.netloc.rpartition("@")[2] if "@" in parts.netloc else parts.netloc
    query = "***" if parts.query else ""
    fragment = "***" if parts.fragment else ""
    return urlunsplit((parts.scheme, netloc, parts.path, query, fragment))
