// Walk: the relations around an entity, the graph first (graph.ts): the drawing fills the
// screen, a details panel beside it (below it on a phone, as a sheet) says what the selection
// is and where it is stated, and lists below hold the same nodes and edges for the keyboard and
// a screen reader. The four bounds and the relation types are a form; `truncatedBy` is a banner
// naming the bound that cut and its fix, one click away. Expanding a node walks from it and
// merges that walk into the view, the new nodes placed around it.
//
// Walks are kept in memory by their arguments: expanding sends one request (the new walk), and
// back or forward to a view already seen sends none. So are the places of their nodes, so a
// walk expanded, or seen again, keeps its shape.

import type cytoscape from "cytoscape";
import { edgeExcerpt } from "./anchor";
import { run } from "./api";
import { counted } from "./counted";
import { h, replace } from "./dom";
import { errorPanel } from "./errors";
import { ExplorerWalkDocument, type ExplorerWalkQuery } from "./gql/graphql";
import { drawGraph, type DrawnGraph, type GraphEdge, type GraphNode } from "./graph";
import { link, navigate, record, setTitle } from "./nav";
import { labelColour, primaryLabel } from "./palette";
import { passageCard, passageList } from "./passages";
import { roving } from "./roving";
import { BOUND_LIMITS, type Scope, type Selection, type View, type WalkBounds } from "./route";
import { scopeInput } from "./search";

type WalkView = Extract<View, { view: "walk" }>;
type Walk = ExplorerWalkQuery["walk"];
type Edge = Walk["edges"][number];
type Node = Walk["nodes"][number];

const walks = new Map<string, Walk>();
const NEIGHBOURS_AT_ONCE = 30; // listed in a node's details before "Show the other …"
// Where each node of a walk was drawn, by the walk's start, bounds and scope.
const places = new Map<string, Map<string, cytoscape.Position>>();
let drawn: DrawnGraph | null = null;

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
  nodes: Map<string, Node>;
  edges: Map<string, Edge>;
  truncatedBy: Set<string>;
  // The node each one was first reached from: the start, or the expansion that found it.
  parentOf: Map<string, string>;
}

function merge(view: WalkView, results: Walk[]): Merged {
  const first = results[0]!;
  const merged: Merged = {
    start: first.start,
    nodes: new Map(),
    edges: new Map(),
    truncatedBy: new Set(),
    parentOf: new Map(),
  };
  results.forEach((walk, index) => {
    const from = index === 0 ? view.id : view.expand[index - 1]!;
    for (const node of walk.nodes) {
      if (!merged.nodes.has(node.id)) {
        merged.nodes.set(node.id, node);
        merged.parentOf.set(node.id, from);
      }
    }
    for (const edge of walk.edges) merged.edges.set(edge.id, edge);
    for (const bound of walk.truncatedBy) merged.truncatedBy.add(bound);
  });
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
      neighbours.set(a, [...(neighbours.get(a) ?? []), b]);
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

/** The bounds and the relation types (checkboxes of the types the walk found, and any the link
 * names that it did not find), and "Walk again". */
function boundsForm(view: WalkView, typesFound: Map<string, number>): HTMLElement {
  const number = (id: string, label: string, name: keyof typeof BOUND_LIMITS, value: number) =>
    h(
      "span",
      { class: "bound" },
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
    );
  const named = view.bounds.relationTypes ?? [];
  const types = [...new Set([...typesFound.keys(), ...named])].sort();
  const typeBoxes = types.map((type) =>
    h(
      "label",
      { class: "type-choice" },
      h("input", {
        type: "checkbox",
        name: "types",
        value: type,
        checked: view.bounds.relationTypes === null || named.includes(type),
      }),
      `${type} (${typesFound.has(type) ? typesFound.get(type) : "none found"})`,
    ),
  );
  const form = h(
    "form",
    { class: "bounds" },
    h(
      "span",
      { class: "bound" },
      h("label", { for: "walk-depth" }, "Depth"),
      h(
        "select",
        { id: "walk-depth", name: "depth" },
        [1, 2].map((depth) => h("option", { value: depth, selected: view.bounds.depth === depth }, String(depth))),
      ),
    ),
    number("walk-nodes", "Max nodes", "maxNodes", view.bounds.maxNodes),
    number("walk-edges", "Max edges", "maxEdges", view.bounds.maxEdges),
    number("walk-candidates", "Max candidates", "maxCandidates", view.bounds.maxCandidates),
    types.length
      ? h("fieldset", { class: "types" }, h("legend", {}, "Relation types (none checked: all)"), typeBoxes)
      : null,
    h("button", { type: "submit" }, "Walk again"),
  );
  form.addEventListener("submit", (event) => {
    event.preventDefault();
    const data = new FormData(form);
    const checked = data.getAll("types").map(String);
    const every = checked.length === 0 || (typesFound.size > 0 && [...typesFound.keys()].every((t) => checked.includes(t)) && checked.length === typesFound.size);
    rewalk(view, {
      depth: Number(data.get("depth")),
      maxNodes: Number(data.get("maxNodes")),
      maxEdges: Number(data.get("maxEdges")),
      maxCandidates: Number(data.get("maxCandidates")),
      relationTypes: every ? null : checked,
    });
  });
  return h(
    "details",
    { class: "walk-settings" },
    h("summary", {}, "Walk settings", h("span", { class: "said" }, `: depth ${view.bounds.depth}, at most ${view.bounds.maxNodes} nodes`)),
    form,
  );
}

function rewalk(view: WalkView, bounds: WalkBounds): void {
  navigate({ view: "walk", id: view.id, bounds, expand: [], selected: null });
}

function raised(value: number, [, high]: readonly [number, number]): number {
  return Math.min(high, value * 2);
}

/** Which bound cut, and its fix as a button: raise the bound, or narrow by relation type. */
function truncationBanner(view: WalkView, merged: Merged): HTMLElement | null {
  const b = view.bounds;
  if (merged.truncatedBy.size === 0) {
    if (b.relationTypes === null || merged.edges.size > 0) return null;
    // A type that names nothing (a typo, say) must not read as "no relations at all".
    const every = h("button", { type: "button", class: "fix" }, "Walk every relation type");
    every.addEventListener("click", () => rewalk(view, { ...b, relationTypes: null }));
    return h(
      "section",
      { class: "banner", role: "status", "aria-labelledby": "types-title" },
      h("h3", { id: "types-title" }, `No ${b.relationTypes.join(" or ")} relation here`),
      h("p", {}, `The walk followed only ${b.relationTypes.join(", ")}, and found none around ${merged.start.name}.`),
      h("p", { class: "fixes" }, every),
    );
  }
  const fixes: HTMLElement[] = [];
  const fix = (text: string, bounds: WalkBounds) => {
    const button = h("button", { type: "button", class: "fix" }, text);
    button.addEventListener("click", () => rewalk(view, bounds));
    fixes.push(button);
  };
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
  // Folded on a phone, so the graph keeps the screen; its summary still names the bounds.
  return h(
    "section",
    { class: "banner", role: "status", "aria-labelledby": "truncated-title" },
    h(
      "details",
      { open: !narrow() },
      h("summary", {}, h("h3", { id: "truncated-title" }, `This walk is incomplete: ${[...merged.truncatedBy].join(", ")}`)),
      h("ul", {}, said.map((text) => h("li", {}, text))),
      h("p", { class: "fixes" }, "Narrow it by relation type, or raise the bound: ", fixes),
    ),
  );
}

export async function showWalk(target: HTMLElement, view: WalkView, scope: Scope, labelOrder: readonly string[]) {
  setTitle("Walk");
  const retry = () => void showWalk(target, view, scope, labelOrder);
  if (!walks.has(walkKey(view.id, view.bounds, scope))) {
    replace(target, h("p", { class: "loading", role: "status" }, "Walking…"));
  }
  let results: Walk[];
  try {
    // The start first, then each expansion; only those not yet in memory are asked for.
    results = [];
    for (const id of [view.id, ...view.expand]) results.push(await walkFrom(id, view.bounds, scope));
  } catch (error) {
    drawn?.destroy();
    drawn = null;
    replace(target, errorPanel(error, retry));
    return;
  }
  render(target, view, scope, merge(view, results), labelOrder);
}

/** How an edge reads: what it asserts when the source said, else its ends and type. */
function headline(edge: Edge, name: (id: string) => string): string {
  return edge.description ?? `${name(edge.source.id)} —${edge.type}→ ${name(edge.target.id)}`;
}

function evidenceCount(node: Node): string {
  const count = node.evidence.length;
  if (count === 0) return "No visible passage mentions it.";
  return `Mentioned in ${count >= 10 ? "10 or more passages" : counted(count, "passage")}.`;
}

function render(target: HTMLElement, view: WalkView, scope: Scope, merged: Merged, labelOrder: readonly string[]): void {
  setTitle(`Walk from ${merged.start.name}`);
  const steps = distances(merged.start.id, merged.edges.values());
  const expanded = new Set([view.id, ...view.expand]);
  const order = [...labelOrder, ...new Set([...merged.nodes.values()].flatMap((node) => node.labels).sort())];
  const groupOf = (node: Node) => primaryLabel(node.labels, order) ?? "";
  const nodes: GraphNode[] = [...merged.nodes.values()].map((node) => ({
    id: node.id,
    name: node.name,
    labels: node.labels,
    group: groupOf(node),
    colour: labelColour(node.labels, order),
    distance: steps.get(node.id) ?? 1,
    expanded: expanded.has(node.id),
  }));
  nodes.sort((a, b) => a.distance - b.distance || a.name.localeCompare(b.name));
  // An edge is drawn only between entities the walks returned.
  const edges = [...merged.edges.values()].filter(
    (edge) => merged.nodes.has(edge.source.id) && merged.nodes.has(edge.target.id),
  );
  const name = (id: string) => merged.nodes.get(id)?.name ?? id;
  const typesFound = new Map<string, number>();
  for (const edge of edges) typesFound.set(edge.type, (typesFound.get(edge.type) ?? 0) + 1);
  let current: WalkView = { ...view, selected: view.selected ?? null };

  const status = h("p", { class: "visually-hidden", role: "status", id: "graph-status" });
  const details = h("aside", { class: "details", id: "walk-details", "aria-labelledby": "details-title" });
  const detailsTitle = (text: string) => {
    const title = h("h3", { id: "details-title", tabindex: -1, "data-key": "details" }, text);
    if (current.selected === null) return title;
    const close = h("button", { type: "button", class: "close", "aria-label": "Clear the selection" }, "×");
    close.addEventListener("click", () => {
      select(null, "list");
      canvas.focus();
    });
    return h("div", { class: "details-head" }, title, close);
  };

  const expand = (id: string, focus: string) => {
    if (expanded.has(id)) return;
    navigate({ ...view, expand: [...view.expand, id], selected: { kind: "node", id } }, false, focus);
  };
  const select = (selection: Selection, by: "pointer" | "keyboard" | "list" | "restore") => {
    const element = selection && (selection.kind === "node" ? merged.nodes.get(selection.id) : merged.edges.get(selection.id));
    const chosen = element ? selection : null;
    current = { ...current, selected: chosen };
    if (by !== "restore") record(current);
    drawn?.show(chosen);
    if (chosen?.kind === "node") showNode(chosen.id);
    else if (chosen?.kind === "edge") showEdge(chosen.id);
    else showHint();
    details.classList.toggle("open", chosen !== null);
    status.textContent = chosen === null ? "Selection cleared." : `Selected ${details.querySelector("h3")?.textContent ?? ""}.`;
    if (by === "list") details.querySelector<HTMLElement>("h3")?.focus();
  };

  const showHint = () =>
    replace(
      details,
      detailsTitle("Details"),
      h(
        "p",
        { class: "hint" },
        "Select an entity or a relation to see what it says and where it is stated: click it on the graph, " +
          "or Tab to the graph and use the arrow keys. Double-click an entity, or press Enter, to expand it " +
          "(walk from it too). The lists below the graph hold the same.",
      ),
    );

  const showEdge = (id: string) => {
    const edge = merged.edges.get(id)!;
    const source = name(edge.source.id);
    const target = name(edge.target.id);
    const end = (nodeId: string) => {
      const button = h("button", { type: "button", class: "end" }, name(nodeId));
      button.addEventListener("click", () => select({ kind: "node", id: nodeId }, "list"));
      return button;
    };
    const cards = edge.evidence.map((passage) =>
      passageCard(passage, edgeExcerpt(passage.text, source, target), [source, target]),
    );
    const list = passageList(cards, "No passage states this relation.");
    replace(
      details,
      detailsTitle(headline(edge, name)),
      h("p", { class: "ends" }, end(edge.source.id), ` —${edge.type}→ `, end(edge.target.id)),
      h(
        "p",
        { class: `kind kind-${edge.kind.toLowerCase()}` },
        edge.kind === "PATH"
          ? "PATH: stored, but no passage states it."
          : `ASSERTION: stated by ${counted(edge.evidence.length, "passage")}, below.`,
        edge.weight === null ? "" : ` Weight ${edge.weight} (the line's width).`,
      ),
      edge.description
        ? h("p", { class: "claim" }, "The headline is what extraction said about the relation: read where it is stated before trusting it.")
        : null,
      h("h4", {}, "Where it is stated"),
      h("p", { class: "key" }, h("mark", { class: "mark-a" }, source), " and ", h("mark", { class: "mark-b" }, target), " are marked."),
      list,
    );
    if (list instanceof HTMLUListElement) roving(list);
  };

  const showNode = (id: string) => {
    const node = merged.nodes.get(id)!;
    const around = new Map<string, Edge[]>();
    for (const edge of edges) {
      if (edge.source.id !== id && edge.target.id !== id) continue;
      const other = edge.source.id === id ? edge.target.id : edge.source.id;
      around.set(other, [...(around.get(other) ?? []), edge]);
    }
    const neighbours = [...around].sort((a, b) => b[1].length - a[1].length || name(a[0]).localeCompare(name(b[0])));
    // A hub's hundreds of neighbours: the first ones at once, the rest on demand, so a click
    // is answered at once.
    const relations = h("ul", { class: "relations" });
    const addNeighbours = (from: number, to: number) =>
      neighbours.slice(from, to).map(([other, ties]) => {
        const neighbour = h("button", { type: "button", class: "neighbour" }, name(other));
        neighbour.addEventListener("click", () => select({ kind: "node", id: other }, "list"));
        return h(
          "li",
          {},
          neighbour,
          h(
            "ul",
            {},
            ties.map((edge) => {
              const tie = h(
                "button",
                { type: "button", class: "tie" },
                `${edge.source.id === id ? "→" : "←"} ${headline(edge, name)} (${edge.type}, ${edge.kind === "PATH" ? "PATH" : counted(edge.evidence.length, "passage")})`,
              );
              tie.addEventListener("click", () => select({ kind: "edge", id: edge.id }, "list"));
              return h("li", {}, tie);
            }),
          ),
        );
      });
    relations.append(...addNeighbours(0, NEIGHBOURS_AT_ONCE));
    const rest = neighbours.length - NEIGHBOURS_AT_ONCE;
    const more = rest > 0 ? h("button", { type: "button", class: "more-neighbours" }, `Show the other ${counted(rest, "neighbour")}`) : null;
    more?.addEventListener("click", () => {
      const added = addNeighbours(NEIGHBOURS_AT_ONCE, neighbours.length);
      relations.append(...added);
      roving(relations);
      more.remove();
      added[0]?.querySelector("button")?.focus();
    });
    const expandButton = h("button", { type: "button", class: "expand", disabled: expanded.has(id) }, expanded.has(id) ? "Expanded" : "Expand (walk from it)");
    expandButton.addEventListener("click", () => expand(id, "graph"));
    replace(
      details,
      detailsTitle(node.name),
      h(
        "p",
        { class: "labels" },
        node.labels.length
          ? node.labels.map((label) => h("span", { class: "chip" }, h("span", { class: "swatch", "data-colour": labelColour([label], order) }), label))
          : "no label",
      ),
      h("p", { class: "description" }, node.description ?? "No description."),
      h("p", { class: "evidence-count" }, evidenceCount(node), " ", link({ view: "entity", id }, "Read its evidence")),
      h("p", { class: "actions" }, expandButton),
      h("h4", {}, `Relations (${counted([...around.values()].flat().length, "relation")}), by neighbour`),
      neighbours.length ? relations : h("p", { class: "empty" }, "None in this walk."),
      more,
    );
    paintSwatches(details);
    roving(relations);
  };

  const canvas = h("div", {
    class: "graph",
    id: "walk-graph",
    tabindex: 0,
    role: "application",
    "aria-roledescription": "graph",
    "aria-label": `Graph of ${counted(nodes.length, "entity", "entities")} and ${counted(edges.length, "relation")} around ${merged.start.name}`,
    "aria-describedby": "graph-keys",
    "data-key": "graph",
  });
  const hidden = new Set<string>();
  const legend = legendOf(nodes, order, (group, shown) => {
    if (shown) hidden.delete(group);
    else hidden.add(group);
    drawn?.hideLabels(hidden);
    for (const item of nodeList.children) {
      (item as HTMLElement).hidden = hidden.has((item as HTMLElement).dataset["group"] ?? "");
    }
  });

  const nodeList = h(
    "ul",
    { class: "node-list" },
    nodes.map((node) => {
      const choose = h("button", { type: "button", class: "node", "data-key": `node:${node.id}` }, node.name);
      choose.addEventListener("click", () => select({ kind: "node", id: node.id }, "list"));
      const expandButton = h(
        "button",
        { type: "button", class: "expand", "aria-label": `Expand ${node.name}`, disabled: node.expanded },
        node.expanded ? "expanded" : "Expand",
      );
      expandButton.addEventListener("click", () => expand(node.id, `node:${node.id}`));
      return h(
        "li",
        { "data-id": node.id, "data-group": node.group },
        choose,
        ` ${node.labels.join(", ") || "no label"}, step ${node.distance} `,
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
        { type: "button", class: `edge kind-${edge.kind.toLowerCase()}`, "data-id": edge.id, "data-key": `edge:${edge.id}` },
        `${name(edge.source.id)} —${edge.type}→ ${name(edge.target.id)}: ${edge.description ?? "no description"} (${edge.kind}, ${counted(edge.evidence.length, "passage")})`,
      );
      button.addEventListener("click", () => select({ kind: "edge", id: edge.id }, "list"));
      return h("li", {}, button);
    }),
  );

  replace(
    target,
    h(
      "div",
      { class: "walk-head" },
      h("h2", { tabindex: -1, class: "view-title" }, `Walk from ${merged.start.name}`),
      h(
        "p",
        { role: "status", class: "walk-summary" },
        `${counted(nodes.length, "entity", "entities")}, ${counted(edges.length, "relation")}` +
          (view.expand.length ? `, ${view.expand.length} expanded` : "") +
          (view.bounds.relationTypes ? ` — only ${view.bounds.relationTypes.join(", ")}` : ""),
      ),
      boundsForm(view, typesFound),
    ),
    truncationBanner(view, merged),
    h(
      "div",
      { class: "walk-stage" },
      h(
        "div",
        { class: "graph-wrap" },
        canvas,
        h("div", { class: "graph-tooltip", role: "tooltip", hidden: true }),
        legend,
        h(
          "p",
          { id: "graph-keys", class: "visually-hidden" },
          "Arrow keys move between entities and select them; Enter expands the selected entity; Escape clears the selection.",
        ),
        status,
      ),
      details,
    ),
    h(
      "section",
      { class: "walk-lists", "aria-label": "The walk as lists" },
      h("h3", {}, `Entities (${nodes.length})`),
      nodeList,
      h("h3", {}, `Relations (${edges.length})`),
      edgeList,
    ),
  );
  roving(nodeList);
  roving(edgeList);
  paintSwatches(target);
  fitStage(target.querySelector<HTMLElement>(".walk-stage")!);

  drawn?.destroy();
  const placeKey = walkKey(view.id, view.bounds, scope);
  const memory = places.get(placeKey) ?? new Map<string, cytoscape.Position>();
  places.set(placeKey, memory);
  drawn = drawGraph(canvas, nodes, edges.map(toGraphEdge), memory, merged.parentOf, {
    select: (selection, by) => select(selection, by),
    expand: (id) => expand(id, "graph"),
  });
  select(current.selected ?? null, "restore");
}

/** The legend: each label's colour with a checkbox that shows or hides its nodes, and what the
 * rings, lines and widths mean. */
function legendOf(nodes: GraphNode[], order: readonly string[], toggle: (group: string, shown: boolean) => void): HTMLElement {
  const groups = new Map<string, number>();
  for (const node of nodes) groups.set(node.group, (groups.get(node.group) ?? 0) + 1);
  const boxes = [...groups]
    .sort((a, b) => order.indexOf(a[0]) - order.indexOf(b[0]) || a[0].localeCompare(b[0]))
    .map(([group, count]) => {
      const box = h("input", { type: "checkbox", checked: true, value: group });
      box.addEventListener("change", () => toggle(group, box.checked));
      return h(
        "label",
        { class: "legend-label" },
        box,
        h("span", { class: "swatch", "data-colour": labelColour(group ? [group] : [], order) }),
        `${group || "no label"} (${count})`,
      );
    });
  return h(
    "details",
    { class: "legend", open: !narrow() },
    h("summary", {}, "Legend"),
    h("fieldset", {}, h("legend", {}, "Labels (uncheck to hide)"), boxes),
    h(
      "ul",
      { class: "key" },
      h("li", {}, h("span", { class: "key-start" }), "where the walk started"),
      h("li", {}, h("span", { class: "key-expanded" }), "expanded"),
      h("li", {}, h("span", { class: "key-selected" }), "selected"),
      h("li", {}, h("span", { class: "key-assertion" }), "ASSERTION: a passage states it"),
      h("li", {}, h("span", { class: "key-path" }), "PATH: no passage"),
      h("li", {}, "a wider line: a greater weight"),
    ),
  );
}

let fitted: (() => void) | null = null;

/** A phone's width (style.css draws the details as a sheet below it). */
function narrow(): boolean {
  return window.matchMedia("(max-width: 700px)").matches;
}

/** The graph takes the screen below the walk's head: its height is the window's less what is
 * above it (and, on a phone, less the details sheet's edge), kept as the window resizes. */
function fitStage(stage: HTMLElement): void {
  if (fitted) window.removeEventListener("resize", fitted);
  fitted = () => {
    const top = stage.getBoundingClientRect().top + window.scrollY;
    const sheet = narrow() ? 72 : 0;
    stage.style.height = `max(18rem, calc(100dvh - ${Math.round(top + sheet)}px))`;
  };
  fitted();
  window.addEventListener("resize", fitted);
}

/** Swatches take their colour from the palette; set as a property, since the page's policy
 * allows no inline style attribute. */
function paintSwatches(root: HTMLElement): void {
  for (const swatch of root.querySelectorAll<HTMLElement>(".swatch[data-colour]")) {
    swatch.style.backgroundColor = swatch.dataset["colour"] ?? "";
  }
}

function toGraphEdge(edge: Edge): GraphEdge {
  return {
    id: edge.id,
    source: edge.source.id,
    target: edge.target.id,
    type: edge.type,
    kind: edge.kind,
    weight: edge.weight ?? null,
    description: edge.description ?? null,
  };
}
