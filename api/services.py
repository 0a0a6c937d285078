"""The long-lived collaborators the lifespan builds once and every request shares."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from api.auth import Authenticator
from api.settings import Settings
from graph.driver import Graph


@dataclass
class Services:
    settings: Settings
    graph: Graph
    authenticator: Authenticator
    query_embedder: Any = None  # embedding.query_cache.QueryEmbedder once the embedder is set up
