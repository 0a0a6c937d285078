"""What start-up writes about the settings (docs/operations.md "Logs"): every setting but the
secrets, and a URL without the user info or query that may carry a password or a key."""

from __future__ import annotations

from api.settings import Settings

NEO4J_URI = "bolt://neo4j:pa55word-in-uri@db.internal:7687"
EMBEDDER_URL = "https://embedder.internal/v1?key=k3y-in-query&region=eu"


def test_urls_in_the_start_up_summary_lose_their_user_info_and_query() -> None:
    settings = Settings.from_environ(
        {"NEO4J_URI": NEO4J_URI, "EMBEDDER_URL": EMBEDDER_URL, "QDRANT_URL": EMBEDDER_URL}
    )
    summary = settings.public_summary()
    assert summary["neo4j_uri"] == "bolt://***@db.internal:7687"
    assert summary["embedder_url"] == "https://embedder.internal/v1?***"
    assert summary["qdrant_url"] == "https://embedder.internal/v1?***"
    for secret in ("pa55word", "k3y", "region"):
        assert secret not in str(summary)
    assert settings.neo4j_uri == NEO4J_URI  # what the driver is given is untouched
