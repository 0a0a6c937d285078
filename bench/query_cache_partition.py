"""The query-vector cache's hit rate on the soak's query mix, shared and partitioned (issue 38 §5).

    .venv/bin/python -m bench.query_cache_partition [--requests 29293] [--clients 16]

The cache (embedding/query_cache.py) now serves a vector only to searches that read the same
workspaces (answers/entity_search.py `embed_query`). This replays the soak's traffic
(bench/soak.py `Soak.operation`: its clients' random sequences, interleaved one request each in
turn, as many requests as the soak's 10-minute run served) through the real `QueryEmbedder`
(the hash embedder: the hit rate depends on the texts, not on the model) and counts hits and
misses of the searches that embed (HYBRID; a LEXICAL search embeds nothing):

- shared: one cache for every caller (before the change);
- partitioned, the soak as it runs: every client searches the one reference workspace, so every
  search is in one partition;
- partitioned, tenants: the soak's clients spread over T tenants, each searching a workspace
  of its own with the same mix (the query texts coincide across tenants, as common searches
  do): T partitions, which a shared cache would have pooled.

No Neo4j, no service: it runs in a second.
"""

from __future__ import annotations

import argparse
import random
from collections.abc import Hashable, Mapping
from types import SimpleNamespace

import anyio

from bench.soak import Soak
from embedding.hashing import HashEmbedder
from embedding.query_cache import DEFAULT_SIZE, QueryEmbedder

SOAK_REQUESTS = 29_293  # the soak's 10-minute run (bench/notebook.md, "Soak: a 10-minute run")
SOAK_CLIENTS = 16
SOAK_DOCUMENTS = 40


def soak_searches(requests: int, clients: int, documents: int) -> list[tuple[int, str]]:
    """(client, query text) of every search that embeds, in the order the soak sends them."""
    # `operation` reads only these attributes of the soak; the ids only fill walks and lookups.
    soak = SimpleNamespace(
        args=SimpleNamespace(documents=documents), entities=["e"], passages=["p"]
    )
    # Client 0 draws the reference's sequence, the others their own (bench/soak.py `client`).
    rngs = [random.Random(-1 if n == 0 else n) for n in range(clients)]
    searches = []
    for number in range(requests):
        client = number % clients
        kind, _, variables = Soak.operation(soak, rngs[client])  # type: ignore[arg-type]
        if kind.endswith("HYBRID"):
            searches.append((client, variables["q"]))
    return searches


async def hit_rate(searches: list[tuple[int, str]], partition_of: Mapping[int, Hashable]) -> float:
    queries = QueryEmbedder(HashEmbedder(16), size=DEFAULT_SIZE)
    for client, text in searches:
        await queries.embed_query(text, partition=partition_of[client])
    return queries.stats.hits / (queries.stats.hits + queries.stats.misses)


async def main_async(args: argparse.Namespace) -> None:
    searches = soak_searches(args.requests, args.clients, args.documents)
    distinct = len({text for _, text in searches})
    print(
        f"{args.requests:,} requests of the soak's mix, {args.clients} clients:"
        f" {len(searches):,} searches embed (HYBRID), {distinct:,} distinct texts;"
        f" cache of {DEFAULT_SIZE} vectors"
    )
    everyone: dict[int, Hashable] = dict.fromkeys(range(args.clients))
    shared = await hit_rate(searches, everyone)
    one_workspace = {n: ("soak-ref",) for n in range(args.clients)}
    print("| traffic | shared (before) | partitioned (after) |")
    print("|---|---|---|")
    print(
        f"| the soak as it runs (one workspace searched) | {shared:.1%} |"
        f" {await hit_rate(searches, one_workspace):.1%} |"
    )
    for tenants in (2, 4, 16):
        if tenants > args.clients:
            continue
        per_tenant = {n: (f"tenant-{n % tenants}",) for n in range(args.clients)}
        print(
            f"| the soak's clients as {tenants} tenants, each its own workspace | {shared:.1%} |"
            f" {await hit_rate(searches, per_tenant):.1%} |"
        )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--requests", type=int, default=SOAK_REQUESTS)
    parser.add_argument("--clients", type=int, default=SOAK_CLIENTS)
    parser.add_argument("--documents", type=int, default=SOAK_DOCUMENTS)
    anyio.run(main_async, parser.parse_args())


if __name__ == "__main__":
    main()
