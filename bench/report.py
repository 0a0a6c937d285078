"""docs/benchmarks.md and its plots from the results bench/load.py leaves (results.json).

.venv/bin/python -m bench.report [docs/benchmarks/results.json]   # again, without running
"""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

REPOSITORY = Path(__file__).resolve().parent.parent
DOC = REPOSITORY / "docs" / "benchmarks.md"
TARGETS = ("service w1", "service w2", "service w1 APQ", "naive peer", "fair peer")
STYLE = {
    "service w1": ("tab:blue", "-"),
    "service w1 APQ": ("tab:green", "-"),
    "service w2": ("tab:cyan", "-"),
    "naive peer": ("tab:gray", "--"),
    "fair peer": ("tab:orange", "--"),
}


def save(figure: Any, out: Path, name: str) -> str:
    """Write `figure` as the PNG `name` in `out`, close it, and return the name."""
    import matplotlib.pyplot as plt

    figure.tight_layout()
    figure.savefig(out / name, dpi=110)
    plt.close(figure)
    return name


def plots(results: dict[str, Any], out: Path) -> dict[str, str]:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    names: dict[str, str] = {}
    scales = results["scales"]

    figure, axes = plt.subplots(1, len(scales), figsize=(5 * len(scales), 4), squeeze=False)
    for axis, scale in zip(axes[0], scales, strict=True):
        levels = scale["throughput"]
        for target in TARGETS:
            rows = sorted((r for r in levels if r["target"] == target), key=lambda r: r["clients"])
            colour, line = STYLE[target]
            axis.plot(
                [r["clients"] for r in rows],
                [r["rps"] for r in rows],
                marker="o",
                color=colour,
                linestyle=line,
                label=target,
            )
        axis.set_xscale("log", base=2)
        axis.set_xticks(
            results["settings"]["clients"], [str(c) for c in results["settings"]["clients"]]
        )
        axis.set_xlabel("concurrent clients")
        axis.set_ylabel("requests / s")
        axis.set_title(f"scale {scale['scale']}: throughput")
        axis.grid(alpha=0.3)
        axis.legend(fontsize=8)
    names["throughput"] = save(figure, out, "throughput.png")

    figure, axis = plt.subplots(figsize=(7, 4))
    paths = [
        ("floor", "hand-written statement"),
        ("service", "service (HTTP)"),
        ("fair_peer", "fair peer (HTTP)"),
    ]
    width = 0.25
    for n, (path, label) in enumerate(paths):
        xs = [i + (n - 1) * width for i in range(len(scales))]
        p50 = [s["floor"][path]["p50"] for s in scales]
        p95 = [s["floor"][path]["p95"] for s in scales]
        axis.bar(xs, p50, width, label=f"{label} p50")
        axis.scatter(xs, p95, marker="_", s=300, color="black")
    axis.set_xticks(range(len(scales)), [f"scale {s['scale']}" for s in scales])
    axis.set_ylabel("ms (bar p50, dash p95)")
    axis.set_title("one client: latency against the floor")
    axis.legend(fontsize=8)
    axis.grid(axis="y", alpha=0.3)
    names["latency"] = save(figure, out, "latency-floor.png")

    hubs = results.get("hubs")
    if hubs and hubs.get("rows"):
        rows = [row for row in hubs["rows"] if row["kind"] != "ordinary"]
        figure, axis = plt.subplots(figsize=(8, 0.4 * len(rows) + 1.5))
        ys = range(len(rows))
        axis.barh([y - 0.2 for y in ys], [r["p50_ratio"] for r in rows], 0.4, label="p50")
        axis.barh([y + 0.2 for y in ys], [r["db_hits_ratio"] for r in rows], 0.4, label="db hits")
        axis.axvline(2.0, color="black", linestyle="--", linewidth=1, label="target 2×")
        axis.set_yticks(list(ys), [r["case"] for r in rows], fontsize=7)
        axis.set_xscale("log")
        axis.set_xlabel("hub / ordinary entity (log scale)")
        axis.set_title("hub entities against ordinary ones")
        axis.legend(fontsize=8)
        axis.grid(axis="x", alpha=0.3)
        names["hubs"] = save(figure, out, "hubs.png")

    soak = next((s["soak"] for s in scales if s.get("soak")), None)
    if soak:
        figure, axis = plt.subplots(figsize=(7, 3.5))
        axis.plot([t for t, _ in soak["rss"]], [m for _, m in soak["rss"]], marker=".")
        axis.set_xlabel("seconds")
        axis.set_ylabel("RSS, MB")
        axis.set_ylim(bottom=0)
        axis.set_title(f"{soak['target']} RSS under {soak['clients']} clients")
        axis.grid(alpha=0.3)
        names["rss"] = save(figure, out, "rss.png")
    return names


def hub_section(hubs: dict[str, Any] | None, relative: str, names: dict[str, str]) -> list[str]:
    """bench/hub_entities.py's rows (this checkout only), as bench/notebook.md explains them."""
    if not hubs or not hubs.get("rows"):
        return ["Not measured in this run (`--hubs 0`)."]
    before, after = hubs["load_before"], hubs["load_after"]
    lines = [
        f"![hub against ordinary]({relative}/{names['hubs']})",
        "",
        "bench/hub_entities.py on the first scale's graph: an entity mentioned in 100,000"
        " passages (`hub`), one mentioned 100,000 times in a workspace the scoped cases leave out,"
        " one with 100,000 relations and one with 1,000 (`relation hub`), against 20 ordinary"
        f" entities of the graph; {hubs['requests']} requests a case, the cases taking turns;"
        " database hits: PROFILE of every statement of one request. Load average"
        f" {before[0]:.2f} before, {after[0]:.2f} after. Target: a hub ≤ 2× an ordinary entity.",
        "",
        "| case | p50 ms | p95 ms | CPU ms (p50) | statements | db hits | p50 / ordinary"
        " | db hits / ordinary |",
        "|---|---|---|---|---|---|---|---|",
    ]
    for row in hubs["rows"]:
        lines.append(
            f"| {row['case']} | {fmt(row['p50_ms'])} | {fmt(row['p95_ms'])} | {fmt(row['cpu_ms'])}"
            f" | {row['statements']} | {row['db_hits']:,} | {row['p50_ratio']:.2f}×"
            f" | {row['db_hits_ratio']:.2f}× |"
        )
    return [*lines, ""]


def fmt(value: float, digits: int = 1) -> str:
    return f"{value:,.{digits}f}"


def throughput_table(levels: list[dict[str, Any]]) -> list[str]:
    lines = [
        "| clients | target | req/s | p50 ms | p95 ms | p99 ms | errors | RSS MB (processes) |"
        " server CPU ms/req | Neo4j CPU ms/req | load avg |",
        "|---|---|---|---|---|---|---|---|---|---|---|",
    ]
    for row in sorted(levels, key=lambda r: (r["clients"], TARGETS.index(r["target"]))):
        if row["requests"] == 0:  # not one answer within the level: no latency to give
            latency = "none answered | — | —"
            cpu = "— | —"
        else:
            latency = f"{fmt(row['p50_ms'])} | {fmt(row['p95_ms'])} | {fmt(row['p99_ms'])}"
            cpu = f"{fmt(row['cpu_ms_per_request'])} | {fmt(row['neo4j_cpu_ms_per_request'])}"
        lines.append(
            f"| {row['clients']} | {row['target']} | {fmt(row['rps'])} | {latency} |"
            f" {row['errors'] + row['non_200']} | {fmt(row['rss_mb'], 0)} ({row['processes']}) |"
            f" {cpu} | {fmt(row['load_average'][1])} |"
        )
    return lines


def against_peer(levels: list[dict[str, Any]]) -> list[str]:
    lines = [
        "| clients | service w1 req/s | service w2 req/s | fair peer req/s | naive peer req/s |"
        " best service / fair peer | best service / naive peer |",
        "|---|---|---|---|---|---|---|",
    ]
    by = {(r["target"], r["clients"]): r["rps"] for r in levels}
    for clients in sorted({r["clients"] for r in levels}):
        best = max(by[("service w1", clients)], by[("service w2", clients)])
        lines.append(
            f"| {clients} | {fmt(by[('service w1', clients)])} | {fmt(by[('service w2', clients)])}"
            f" | {fmt(by[('fair peer', clients)])} | {fmt(by[('naive peer', clients)])} |"
            f" {best / by[('fair peer', clients)]:.2f} | {best / by[('naive peer', clients)]:.2f} |"
        )
    return lines


def write(results: dict[str, Any], out: Path, doc: Path = DOC) -> None:
    out = out.resolve()
    names = plots(results, out)
    relative = out.relative_to(doc.parent) if out.is_relative_to(doc.parent) else out
    scales = results["scales"]
    versions = ", ".join(f"{k} {v}" for k, v in results["versions"].items())
    m = results["machine"]
    s = results["settings"]
    lines = [
        "# Benchmarks: the service under load, against the floor and the peer",
        "",
        "Generated by `make bench` (`python -m bench`, bench/load.py and bench/report.py) from"
        f" one run; the figures are in [{relative}/results.json]({relative}/results.json)."
        " How it is measured, what each target is asked, and why wrk: the end of this page.",
        "",
        f"- **Run**: {results['started']}, {results['minutes']:.0f} min;"
        f" {s['seconds']:g} s a throughput level, {s['floor_queries']} interleaved queries a"
        f" path against the floor, RSS run {s['soak']:g} s.",
        f"- **Machine**: {m['cpu']}, {m['cores']} cores, {m['memory_mb']:,} MB, Linux"
        f" {m['kernel']}; shared with other engineers' test runs: **load average (1, 5, 15 min)"
        f" {', '.join(fmt(x, 2) for x in results['load_average_start'])} at the start,"
        f" {', '.join(fmt(x, 2) for x in results['load_average_end'])} at the end** (each"
        " level's is in its row). On 2 loaded cores absolute milliseconds move by ±30% from"
        " run to run: compare ratios within this run.",
        f"- **Versions**: {versions}; Neo4j 5.26 Community (localneo4j, default heap and page"
        " cache).",
        "",
        "## Latency against the floor (one client, interleaved)",
        "",
        f"![latency against the floor]({relative}/{names['latency']})",
        "",
        "| scale | floor p50 / p95 ms | service HTTP p50 / p95 ms | **service / floor p50**"
        " (p95) | target p50 | fair peer p50 / p95 ms | fair peer / floor p50 (p95) | load avg |",
        "|---|---|---|---|---|---|---|---|",
    ]
    targets = {"S": 1.7, "L": 1.5}
    for scale in scales:
        f = scale["floor"]
        goal = targets.get(scale["scale"])
        verdict = (
            ""
            if goal is None
            else f"≤ {goal} " + ("met" if f["service"]["ratio_p50"] <= goal else "**not met**")
        )
        lines.append(
            f"| {scale['scale']} | {fmt(f['floor']['p50'])} / {fmt(f['floor']['p95'])} |"
            f" {fmt(f['service']['p50'])} / {fmt(f['service']['p95'])} |"
            f" **{f['service']['ratio_p50']:.2f}** ({f['service']['ratio_p95']:.2f}) | {verdict} |"
            f" {fmt(f['fair_peer']['p50'])} / {fmt(f['fair_peer']['p95'])} |"
            f" {f['fair_peer']['ratio_p50']:.2f} ({f['fair_peer']['ratio_p95']:.2f}) |"
            f" {fmt(f['load_average'][0])}–{fmt(f['load_average'][1])} |"
        )
    if len(scales) >= 2:
        first, last = scales[0]["floor"], scales[-1]["floor"]
        lines += [
            "",
            f"**Growth {scales[-1]['scale']}/{scales[0]['scale']}** (p50): floor"
            f" {last['floor']['p50'] / first['floor']['p50']:.2f}, service"
            f" {last['service']['p50'] / first['service']['p50']:.2f}, fair peer"
            f" {last['fair_peer']['p50'] / first['fair_peer']['p50']:.2f}.",
        ]
    lines += [
        "",
        "## Throughput against clients",
        "",
        f"![throughput]({relative}/{names['throughput']})",
        "",
    ]
    for scale in scales:
        lines += [f"### Scale {scale['scale']}", "", *against_peer(scale["throughput"]), ""]
        lines += [*throughput_table(scale["throughput"]), ""]
    soak = next((sc["soak"] for sc in scales if sc.get("soak")), None)
    if soak:
        rss = [mb for _, mb in soak["rss"]]
        lines += [
            "## RSS over time",
            "",
            f"![RSS]({relative}/{names['rss']})",
            "",
            f"{soak['target']} under {soak['clients']} clients for {soak['seconds']:g} s:"
            f" {soak['requests']:,} requests, {soak['errors']} errors; RSS {fmt(rss[0], 0)} MB at"
            f" the start, {fmt(rss[len(rss) // 2], 0)} MB half-way, {fmt(rss[-1], 0)} MB at the"
            f" end (max {fmt(max(rss), 0)} MB).",
            "",
        ]
    lines += ["## Hub entities against ordinary ones", ""]
    lines += hub_section(results.get("hubs"), str(relative), names)
    # Sections measured by their own commands (bench/measured-apart.md), then what a person read
    # in the figures (bench/findings.md): both kept beside the generator, so a run keeps them.
    apart = REPOSITORY / "bench" / "measured-apart.md"
    if apart.is_file():
        text = apart.read_text()
        if text.startswith("<!--"):  # the note to editors stays in the source
            text = text.split("-->", 1)[1]
        lines += ["", text.strip()]
    findings = REPOSITORY / "bench" / "findings.md"
    if findings.is_file():
        lines += ["", findings.read_text().rstrip()]
    lines += ["", METHOD.rstrip("\n")]
    doc.write_text("\n".join(lines) + "\n")
    print(f"wrote {doc}", file=sys.stderr)


METHOD = """## How it is measured

**The graph**: bench/build_graph.py (bench/notebook.md describes it): S = 10,000 entities /
50,000 passages, L = 100,000 entities / 500,000 passages, 3 workspaces, superseded versions
and unfinished jobs, 384-d `hash` vectors; each in a private Neo4j 5.26 under `--work`, built
once and kept.

**What each target is asked** (the same distinct queries, bench/vocabulary.py, in the same
order):
- **service**: `evidencegraph serve --workers 1` and `--workers 2` (hash embedder, no
  authentication, JSON logs): `searchEntities(query, limit: 10, supportLimit: 3)` with
  `entity { id name labels } status score evidence { id text document { title } }` — hybrid,
  every label, visibility and evidence (contract §3).
- **fair peer**: @neo4j/graphql under Apollo Server 5 (`NODE_ENV=production`, no
  introspection), one Node process, a `@cypher` field `search` running the floor's statement
  (bench/handwritten_search.py) with the same selection. The client sends what the floor
  computes in Python (the query's words, the regexes of its words and of the names it equals,
  its hash vector), so the peer embeds nothing: what a user of the library would have to
  write to get the service's answers.
- **naive peer**: the same server's generated `personSearch(phrase, first: 10)` with
  `mentions(limit: 3) { id text document(limit: 1) { title } }`: one label, full text only,
  no visibility (superseded, unfinished and every workspace's passages count). Cheaper work
  than the others; it answers a different, wrong question, and shows what the library's
  generated reads cost.
- **floor**: the hand-written statement itself, asked by the benchmark's process over Bolt
  with the same async driver (no HTTP, no GraphQL). Written from the contract alone, not from
  the service's code: every label's FULLTEXT and VECTOR index, the lexical list ordered by
  contract §3's name rules (an exact name first, then completeness, then the index's score),
  HYBRID with exact names first and then RRF, only returnable entities (in scope, published,
  of a document not deleted) ranked, evidence with text and title.
  `python -m bench.floor_agreement --uri …` checks that it answers as the service does (the
  same entities in the same order, ranks, scores, status and evidence).

**Latency against the floor**: one client, each query asked of the service, the floor and the
fair peer in a rotating order (30 warm-up queries first), so load from other processes falls
on all three alike.

**Throughput**: [wrk](https://github.com/wg/wrk) 4.1 with bench/wrk_graphql.lua, closed loop:
N connections (a wrk thread each), each sending its next request when the last is answered,
for the level's seconds, after a warm-up of every target. The targets run side by side on the same
Neo4j; each level asks them one after another in a rotating order. An error is a transport
error, a timeout (60 s), a non-200 answer or a GraphQL `errors` in the body; an answer refused
`OVERLOADED` (the service's admission queue was full) is counted apart, and its client waits
the `Retry-After` it was given before sending again, as the contract asks of clients (runs
before 2 December 2026 used two wrk threads and sent again at once). RSS is the
server's processes' (a uvicorn supervisor and its workers; the Node process) after the level;
CPU per request is user + system time of those processes (and of Neo4j's JVM) during the
level over the requests answered. wrk, the servers and Neo4j share the same 2 cores.

**Why wrk**: a small C program (epoll, LuaJIT) that costs almost no CPU at these rates, which
matters when the load generator shares 2 cores with the servers and Neo4j (locust would take a
core of Python for itself); a Lua script gives every request its own body and checks every
answer for GraphQL errors; its latency histogram gives any percentile; it installs as a
Debian package (`apt-get install wrk`), no compiler needed (oha would need a Rust build of
some hundred crates here; k6 is not a package of the registries this project can use).
"""


def main() -> None:
    path = (
        Path(sys.argv[1])
        if len(sys.argv) > 1
        else REPOSITORY / "docs" / "benchmarks" / "results.json"
    )
    write(json.loads(path.read_text()), path.parent)


if __name__ == "__main__":
    main()
