// Walk: the relations around an entity, drawn (graph.ts) and listed (the same nodes and edges as
// links and buttons, so the keyboard and a screen reader get all the canvas shows). The four
// bounds are controls; `truncatedBy` is a banner naming the bound that cut and its fix, one
// click away. Expanding a node walks from it and merges that walk into the view; an edge shows
// the passages that state it.
//
// Walks are kept in memory by their arguments: expanding sends one request (the new walk), and
// back or forward to a view already seen sends none.

import type cytoscape from "cytoscape";
import { run } from "./api";
import { counted } from "./counted";
import { h, replace } from "./dom";
import { errorPanel } from "./errors";
import { ExplorerWalkDocument, type ExplorerWalkQuery } from "./gql/graphql";
import { drawGraph, type GraphEdge, type GraphNode } from "./graph";
import { link, navigate } from "./nav";
import { passageList } from "./passages";
import { BOUND_LIMITS, type Scope, type View, type WalkBounds } from "./route";
import { scopeInput } from "./search";

type WalkView = Extract<View, { view: "walk" }>;
type Walk = ExplorerWalkQuery["walk"];
type Edge = Walk["edges"][number];

const walks = new Map<string, Walk>();
let drawn: cytoscape.Core | null = null;

function walkKey(id: string, bounds: WalkBounds, scope: Scope): string {
  return JSON.stringify([id, bounds, scope]);
}

async function walkFrom(id: string, bounds: WalkBounds, scope: Scope): Promise<Walk> {
  const key = walkKey(id, bounds, scope);
  const known = walks.get(key);
  if (known) return known;
  const { walk } = await run(ExplorerWalkDocument, {
    entityId: id,
    scope: scopeInput(scope),
    depth: bounds.depth,
    relationTypes: bounds.relationTypes,
    maxNodes: bounds.maxNodes,
    maxEdges: bounds.maxEdges,
    maxCandidates: bounds.maxCandidates,
  });
  walks.set(key, walk);
  return walk;
}

interface Merged {
  start: Walk["start"];
  names: Map<string, string>;
  edges: Map<string, Edge>;
  truncatedBy: Set<string>;
}

function merge(results: Walk[]): Merged {
  const first = results[0]!;
  const merged: Merged = {
    start: first.start,
    names: new Map(),
    edges: new Map(),
    truncatedBy: new Set(),
  };
  for (const walk of results) {
    for (const node of walk.nodes) merged.names.set(node.id, node.name);
    for (const edge of walk.edges) merged.edges.set(edge.id, edge);
    for (const bound of walk.truncatedBy) merged.truncatedBy.add(bound);
  }
  return merged;
}

/** Steps from the start over the merged edges, in either direction (the walk's own sense). */
function distances(start: string, edges: Iterable<Edge>): Map<string, number> {
  const neighbours = new Map<string, string[]>();
  for (const edge of edges) {
    for (const [a, b] of [
      [edge.source.id, edge.target.id],
      [edge.target.id, edge.source.id],
    ] as const) {
      const list = neighbours.get(a) ?? [];
      list.push(b);
      neighbours.set(a, list);
    }
  }
  const found = new Map([[start, 0]]);
  const queue = [start];
  for (let next = queue.shift(); next !== undefined; next = queue.shift()) {
    const distance = found.get(next)!;
    for (const other of neighbours.get(next) ?? []) {
      if (!found.has(other)) {
        found.set(other, distance + 1);
        queue.push(other);
      }
    }
  }
  return found;
}

function boundsForm(view: WalkView): HTMLFormElement {
  const number = (id: string, label: string, name: keyof typeof BOUND_LIMITS, value: number) => [
    h("label", { for: id }, label),
    h("input", {
      id,
      name,
      type: "number",
      min: BOUND_LIMITS[name][0],
      max: BOUND_LIMITS[name][1],
      value,
      required: true,
    }),
  ];
  const form = h(
    "form",
    { class: "bounds" },
    h("label", { for: "walk-depth" }, "Depth"),
    h(
      "select",
      { id: "walk-depth", name: "depth" },
      [1, 2].map((depth) => h("option", { value: depth, selected: view.bounds.depth === depth }, String(depth))),
    ),
    number("walk-nodes", "Max nodes", "maxNodes", view.bounds.maxNodes),
    number("walk-edges", "Max edges", "maxEdges", view.bounds.maxEdges),
    number("walk-candidates", "Max candidates", "maxCandidates", view.bounds.maxCandidates),
    h("label", { for: "walk-types" }, "Relation types (comma-separated; empty: all)"),
    h("input", {
      id: "walk-types",
      name: "types",
      type: "text",
      value: view.bounds.relationTypes?.join(",") ?? "",
    }),
    h("button", { type: "submit" }, "Walk again"),
  );
  form.addEventListener("submit", (event) => {
    event.preventDefault();
    const data = new FormData(form);
    const types = String(data.get("types") ?? "")
      .split(",")
      .map((type) => type.trim())
      .filter(Boolean);
    rewalk(view, {
      depth: Number(data.get("depth")),
      maxNodes: Number(data.get("maxNodes")),
      maxEdges: Number(data.get("maxEdges")),
      maxCandidates: Number(data.get("maxCandidates")),
      relationTypes: types.length ? types : null,
    });
  });
  return form;
}

function rewalk(view: WalkView, bounds: WalkBounds): void {
  navigate({ view: "walk", id: view.id, bounds, expand: [] });
}

function raised(value: number, [, high]: readonly [number, number]): number {
  return Math.min(high, value * 2);
}

/** Which bound cut, and its fix as a button: raise the bound, or narrow by relation type. */
function truncationBanner(view: WalkView, merged: Merged): HTMLElement | null {
  if (merged.truncatedBy.size === 0) return null;
  const fixes: HTMLElement[] = [];
  const fix = (text: string, bounds: WalkBounds) => {
    const button = h("button", { type: "button", class: "fix" }, text);
    button.addEventListener("click", () => rewalk(view, bounds));
    fixes.push(button);
  };
  const b = view.bounds;
  const said: string[] = [];
  for (const bound of merged.truncatedBy) {
    if (bound === "NODES") {
      said.push(`NODES: the walk reached its limit of ${counted(b.maxNodes, "entity", "entities")}`);
      if (b.maxNodes < BOUND_LIMITS.maxNodes[1]) {
        const to = raised(b.maxNodes, BOUND_LIMITS.maxNodes);
        fix(`Raise max nodes to ${to}`, { ...b, maxNodes: to });
      }
    } else if (bound === "EDGES") {
      said.push(`EDGES: the walk reached its limit of ${counted(b.maxEdges, "relation")}`);
      if (b.maxEdges < BOUND_LIMITS.maxEdges[1]) {
        const to = raised(b.maxEdges, BOUND_LIMITS.maxEdges);
        fix(`Raise max edges to ${to}`, { ...b, maxEdges: to });
      }
    } else if (bound === "DEPTH") {
      said.push(`DEPTH: there are relations beyond depth ${b.depth}`);
      if (b.depth < 2) fix("Walk to depth 2", { ...b, depth: 2 });
    } else if (bound === "CANDIDATES") {
      said.push(`CANDIDATES: a step read its limit of ${counted(b.maxCandidates, "stored relation")}`);
      if (b.maxCandidates < BOUND_LIMITS.maxCandidates[1]) {
        const to = raised(b.maxCandidates, BOUND_LIMITS.maxCandidates);
        fix(`Raise max candidates to ${to}`, { ...b, maxCandidates: to });
      }
    }
  }
  if (b.relationTypes === null) {
    const types = [...new Set([...merged.edges.values()].map((edge) => edge.type))].sort();
    for (const type of types) fix(`Only ${type} relations`, { ...b, relationTypes: [type] });
  }
  return h(
    "section",
    { class: "banner", role: "status", "aria-labelledby": "truncated-title" },
    h("h3", { id: "truncated-title" }, "This walk is incomplete"),
    h("ul", {}, said.map((text) => h("li", {}, text))),
    h("p", {}, "Narrow it by relation type, or raise the bound:"),
    h("div", { class: "fixes" }, fixes),
  );
}

export async function showWalk(target: HTMLElement, view: WalkView, scope: Scope) {
  const retry = () => void showWalk(target, view, scope);
  if (!walks.has(walkKey(view.id, view.bounds, scope))) {
    replace(target, h("p", { class: "loading", role: "status" }, "Walking…"));
  }
  let results: Walk[];
  try {
    // The start first, then each expansion; only those not yet in memory are asked for.
    results = [];
    for (const id of [view.id, ...view.expand]) results.push(await walkFrom(id, view.bounds, scope));
  } catch (error) {
    replace(target, errorPanel(error, retry));
    return;
  }
  render(target, view, merge(results));
}

function render(target: HTMLElement, view: WalkView, merged: Merged): void {
  const steps = distances(merged.start.id, merged.edges.values());
  const expanded = new Set([view.id, ...view.expand]);
  const nodes: GraphNode[] = [...merged.names].map(([id, name]) => ({
    id,
    name,
    distance: steps.get(id) ?? 1,
    expanded: expanded.has(id),
  }));
  nodes.sort((a, b) => a.distance - b.distance || a.name.localeCompare(b.name));
  // An edge is drawn only between entities the walks returned.
  const edges = [...merged.edges.values()].filter(
    (edge) => merged.names.has(edge.source.id) && merged.names.has(edge.target.id),
  );
  const name = (id: string) => merged.names.get(id) ?? id;

  const details = h("section", { class: "details", "aria-live": "polite", id: "walk-details" });
  const showEdge = (id: string) => {
    const edge = merged.edges.get(id);
    if (!edge) return;
    replace(
      details,
      h("h3", { tabindex: -1 }, `${name(edge.source.id)} —${edge.type}→ ${name(edge.target.id)}`),
      h("p", { class: `kind kind-${edge.kind.toLowerCase()}` }, edge.kind === "PATH"
        ? "PATH: stored, but no passage states it."
        : `ASSERTION: stated by ${counted(edge.evidence.length, "passage")}.`),
      passageList(edge.evidence, [], "No passage states this relation."),
    );
    details.querySelector<HTMLElement>("h3")?.focus();
  };
  const expand = (id: string) => {
    if (expanded.has(id)) return;
    navigate({ ...view, expand: [...view.expand, id] });
  };
  const showNode = (id: string) => {
    const button = h("button", { type: "button", class: "expand" }, "Expand (walk from it)");
    button.addEventListener("click", () => expand(id));
    replace(
      details,
      h("h3", { tabindex: -1 }, name(id)),
      h("p", {}, link({ view: "entity", id }, "Open entity")),
      expanded.has(id) ? h("p", {}, "Already expanded.") : button,
    );
    details.querySelector<HTMLElement>("h3")?.focus();
  };

  const canvas = h("div", {
    class: "graph",
    id: "walk-graph",
    role: "img",
    "aria-label": `Graph of ${counted(nodes.length, "entity", "entities")} and ${counted(edges.length, "relation")} around ${merged.start.name}; the lists below hold the same.`,
  });
  const nodeList = h(
    "ul",
    { class: "node-list" },
    nodes.map((node) => {
      const expandButton = h(
        "button",
        { type: "button", class: "expand", "aria-label": `Expand ${node.name}`, disabled: node.expanded },
        node.expanded ? "expanded" : "Expand",
      );
      expandButton.addEventListener("click", () => expand(node.id));
      return h(
        "li",
        { "data-id": node.id },
        link({ view: "entity", id: node.id }, node.name),
        ` (step ${node.distance}) `,
        expandButton,
      );
    }),
  );
  const edgeList = h(
    "ul",
    { class: "edge-list" },
    edges.map((edge) => {
      const button = h(
        "button",
        { type: "button", class: `edge kind-${edge.kind.toLowerCase()}`, "data-id": edge.id },
        `${name(edge.source.id)} —${edge.type}→ ${name(edge.target.id)} (${edge.kind}, ${counted(edge.evidence.length, "passage")})`,
      );
      button.addEventListener("click", () => showEdge(edge.id));
      return h("li", {}, button);
    }),
  );

  replace(
    target,
    h("h2", { tabindex: -1, class: "view-title" }, `Walk from ${merged.start.name}`),
    h(
      "p",
      { role: "status", class: "walk-summary" },
      `${counted(nodes.length, "entity", "entities")}, ${counted(edges.length, "relation")}` +
        (view.expand.length ? `, ${view.expand.length} expanded` : "") +
        (view.bounds.relationTypes ? ` — only ${view.bounds.relationTypes.join(", ")}` : ""),
    ),
    boundsForm(view),
    truncationBanner(view, merged),
    h("p", { class: "legend" }, "Solid line: ASSERTION (a passage states it). Dashed line: PATH (no passage)."),
    h("div", { class: "walk-body" }, canvas, details),
    h("h3", {}, "Entities"),
    nodeList,
    h("h3", {}, "Relations"),
    edgeList,
  );
  drawn?.destroy();
  drawn = drawGraph(canvas, nodes, edges.map(toGraphEdge), { node: showNode, edge: showEdge });
}

function toGraphEdge(edge: Edge): GraphEdge {
  return { id: edge.id, source: edge.source.id, target: edge.target.id, type: edge.type, kind: edge.kind };
}
