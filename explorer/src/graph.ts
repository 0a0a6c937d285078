// Drawing a walk with cytoscape.js (docs/explorer.md says why this library), the graph first
// (issue 40 §2):
// - nodes coloured by label (palette.ts; the legend says which colour is which and filters),
//   the start with a dark ring, an expanded node with a double ring, the selection with a halo;
// - ASSERTION edges solid, PATH dashed, each as wide as its weight; an edge says what it
//   asserts (its description) in a tooltip, and its type once selected;
// - laid out by fcose (cytoscape-fcose, a force-directed layout), seeded so the same walk is
//   drawn the same way every time; an expansion keeps every node where it was and places the new
//   ones around the node they came from. A walk of more than `LARGE` nodes is drawn in rings
//   around the start instead (fcose takes seconds there), an expansion still around its node;
// - labels as large as a node's neighbourhood, shown only where they can be read at the zoom;
// - a click selects and lights up the neighbourhood, a double click expands; the keyboard
//   reaches it all too: the drawing takes the focus, arrows move between nodes, Enter expands,
//   Escape clears the selection.

import cytoscape from "cytoscape";
import fcose from "cytoscape-fcose";
import type { Selection } from "./route";

cytoscape.use(fcose);

export interface GraphNode {
  id: string;
  name: string;
  labels: string[];
  group: string; // the label it is coloured by (palette.ts), "" for none: the legend's filter
  colour: string;
  distance: number; // steps from the start
  expanded: boolean;
}

export interface GraphEdge {
  id: string;
  source: string;
  target: string;
  type: string;
  kind: "ASSERTION" | "PATH";
  weight: number | null;
  description: string | null;
}

export interface GraphHandlers {
  /** The user selected (or, with null, cleared) something on the drawing. */
  select: (selection: Selection, by: "pointer" | "keyboard") => void;
  expand: (id: string) => void;
}

export interface DrawnGraph {
  cy: cytoscape.Core;
  /** Show `selection` as selected, its neighbourhood lit, the rest faded. */
  show: (selection: Selection) => void;
  /** Hide the nodes coloured by one of `groups` (the legend's filter). */
  hideLabels: (groups: ReadonlySet<string>) => void;
  destroy: () => void;
}

export const LARGE = 150;
const NODE = 22; // a node's diameter with no relation, in model pixels
const FONT = 11;

function edgeWidth(weight: number | null, range: [number, number]): number {
  if (weight === null || !Number.isFinite(weight)) return 2;
  const [low, high] = range;
  return high > low ? 1.5 + (4.5 * (weight - low)) / (high - low) : 3;
}

/** The style sheet, whole before the graph is made: changing it afterwards restyles every
 * element again. A large walk gets straight edges (a bezier's control points are worked out
 * per edge; a walk has no parallel edges to bend apart). */
function styleFor(many: boolean): cytoscape.StylesheetJson {
  return [
    {
      selector: "node",
      style: {
        label: "data(name)",
        "background-color": "data(colour)",
        // A large walk's nodes are drawn plainer: each outline is one more stroke per node
        // in every frame.
        "border-width": many ? 0 : 1,
        "border-color": "#1a202c",
        color: "#1a202c",
        "font-size": "data(font)",
        "min-zoomed-font-size": 8,
        "text-valign": "bottom",
        "text-margin-y": 3,
        "text-outline-color": "#ffffff",
        "text-outline-width": many ? 0 : 2,
        "text-wrap": "ellipsis",
        "text-max-width": "140px",
        width: "data(size)",
        height: "data(size)",
        // The selection's halo is one every node carries, invisible (1 % white) until the node
        // is chosen: choosing one then changes its halo's colour, not its bounds, and a change
        // of a node's bounds makes cytoscape work out every edge of it again before it draws
        // (499 for a hub).
        "underlay-shape": "ellipse",
        "underlay-padding": 7,
        "underlay-color": "#ffffff",
        "underlay-opacity": 0.01,
      },
    },
    { selector: "node[distance = 0]", style: { "border-width": 5, "border-color": "#1a202c" } },
    {
      selector: "node[?expanded]",
      style: { "border-width": 6, "border-style": "double", "border-color": "#1a202c" },
    },
    {
      selector: "edge",
      style: {
        width: "data(width)",
        "line-color": "#718096",
        "target-arrow-color": "#718096",
        "target-arrow-shape": "triangle",
        "arrow-scale": 0.8,
        "curve-style": many ? "straight" : "bezier",
      },
    },
    {
      selector: 'edge[kind = "PATH"]',
      // A large walk is fitted at about a quarter of life size (500 nodes: 0.24), where 6/4
      // would be dashes of a pixel and a half: a grey haze, and a stroke per dash, two fifths
      // of a redraw of 500 nodes. Four times as long, they read as dashes there, and a redraw
      // takes a quarter less.
      style: { "line-style": "dashed", "line-dash-pattern": many ? [24, 16] : [6, 4] },
    },
    // No grey overlay while the button is down (cytoscape's default for `:active`): it changes
    // the pressed node's bounds, twice a click, and cytoscape then works out again every edge
    // of that node (499 for a hub) before it draws. The selection's halo says what was clicked.
    // Set for every element too: a property no rule sets counts as changed at each press.
    { selector: "node, edge", style: { "overlay-opacity": 0 } },
    { selector: ":active", style: { "overlay-opacity": 0 } },
    { selector: ".faded", style: { opacity: 0.15 } },
    { selector: ".hidden", style: { display: "none" } },
    {
      selector: "node.chosen",
      style: { "underlay-color": "#dd6b20", "underlay-opacity": 0.85 },
    },
    {
      selector: "edge.chosen",
      style: {
        "line-color": "#c05621",
        "target-arrow-color": "#c05621",
        label: "data(type)",
        "font-size": 10,
        color: "#1a202c",
        "text-background-color": "#ffffff",
        "text-background-opacity": 0.9,
        "text-background-padding": "2px",
        "text-rotation": "autorotate",
      },
    },
  ];
}

/** Rings around the start, one per step, in one pass (for a walk too large for fcose): each
 * ring's radius leaves `spacing` between neighbours and at least one ring's width inside. */
function ringPositions(nodes: GraphNode[], spacing: number): Map<string, cytoscape.Position> {
  const rings = new Map<number, GraphNode[]>();
  for (const node of nodes) rings.set(node.distance, [...(rings.get(node.distance) ?? []), node]);
  const positions = new Map<string, cytoscape.Position>();
  let radius = 0;
  for (const distance of [...rings.keys()].sort((a, b) => a - b)) {
    const ring = rings.get(distance)!;
    if (distance === 0 && ring.length === 1) {
      positions.set(ring[0]!.id, { x: 0, y: 0 });
      continue;
    }
    radius = Math.max(radius + spacing * 2, (ring.length * spacing) / (2 * Math.PI));
    ring.forEach((node, index) => {
      const angle = (2 * Math.PI * index) / ring.length - Math.PI / 2;
      positions.set(node.id, { x: radius * Math.cos(angle), y: radius * Math.sin(angle) });
    });
  }
  return positions;
}

/** Places for nodes not drawn before: around the node they came from (`parentOf`), on the
 * side away from the rest of the drawing, one ring of them. */
function aroundParents(
  fresh: GraphNode[],
  parentOf: ReadonlyMap<string, string>,
  known: ReadonlyMap<string, cytoscape.Position>,
): Map<string, cytoscape.Position> {
  const placed = new Map<string, cytoscape.Position>();
  const centre = { x: 0, y: 0 };
  for (const position of known.values()) {
    centre.x += position.x / known.size;
    centre.y += position.y / known.size;
  }
  const children = new Map<string, GraphNode[]>();
  for (const node of fresh) {
    const parent = parentOf.get(node.id) ?? "";
    children.set(parent, [...(children.get(parent) ?? []), node]);
  }
  for (const [parent, group] of children) {
    const at = known.get(parent) ?? centre;
    const away = Math.atan2(at.y - centre.y, at.x - centre.x);
    const radius = 70 + group.length * 4;
    const spread = Math.min(2 * Math.PI, Math.PI / 2 + group.length * 0.35);
    group.forEach((node, index) => {
      const angle = away - spread / 2 + (spread * (index + 0.5)) / group.length;
      placed.set(node.id, { x: at.x + radius * Math.cos(angle), y: at.y + radius * Math.sin(angle) });
    });
  }
  return placed;
}

/** `run` with Math.random drawing from a fixed seed: fcose's spectral step starts from random
 * vectors, and the same walk must be drawn the same way in every tab. */
function seeded<T>(run: () => T): T {
  const random = Math.random;
  let state = 0x2545f491;
  Math.random = () => {
    state ^= state << 13;
    state ^= state >>> 17;
    state ^= state << 5;
    return (state >>> 0) / 4294967296;
  };
  try {
    return run();
  } finally {
    Math.random = random;
  }
}

export function drawGraph(
  container: HTMLElement,
  nodes: GraphNode[],
  edges: GraphEdge[],
  memory: Map<string, cytoscape.Position>,
  parentOf: ReadonlyMap<string, string>,
  handlers: GraphHandlers,
): DrawnGraph {
  const started = performance.now();
  const many = nodes.length > LARGE;
  const degree = new Map<string, number>();
  for (const edge of edges) {
    for (const end of [edge.source, edge.target]) degree.set(end, (degree.get(end) ?? 0) + 1);
  }
  const weights = edges.map((edge) => edge.weight).filter((w): w is number => w !== null && Number.isFinite(w));
  const range: [number, number] = [Math.min(...weights), Math.max(...weights)];
  const known = new Map([...memory].filter(([id]) => nodes.some((node) => node.id === id)));
  const fresh = known.size === 0 ? [] : nodes.filter((node) => !known.has(node.id));
  const isFresh = new Set(fresh.map((node) => node.id));
  const seeds =
    known.size === 0 ? ringPositions(nodes, many ? 22 : 60) : aroundParents(fresh, parentOf, known);
  const cy = cytoscape({
    container,
    elements: [
      ...nodes.map((node) => {
        const links = degree.get(node.id) ?? 0;
        return {
          group: "nodes" as const,
          data: {
            ...node,
            size: node.distance === 0 ? NODE + 12 : NODE + Math.min(14, links * 1.5),
            font: FONT + Math.min(7, links),
          },
          position: known.get(node.id) ?? seeds.get(node.id) ?? { x: 0, y: 0 },
        };
      }),
      ...edges.map((edge) => ({
        group: "edges" as const,
        data: { ...edge, width: edgeWidth(edge.weight, range) },
      })),
    ],
    style: styleFor(many),
    layout: { name: "preset", fit: false },
    minZoom: 0.05,
    maxZoom: 4,
    boxSelectionEnabled: false,
    // The selection is the page's (`show`, the class `chosen`), not cytoscape's own.
    autounselectify: true,
    hideEdgesOnViewport: many,
    textureOnViewport: many,
  });
  if (!many && (fresh.length > 0 || known.size === 0)) {
    // Known nodes stay put; new ones settle around where they were seeded.
    const fixed = [...known].map(([nodeId, position]) => ({ nodeId, position }));
    seeded(() =>
      cy
        .layout({
          name: "fcose",
          randomize: known.size === 0,
          animate: false,
          fit: false,
          nodeDimensionsIncludeLabels: false,
          // An expansion's new nodes keep closer to the node they came from.
          idealEdgeLength: (edge: cytoscape.EdgeSingular) =>
            isFresh.has(edge.source().id()) || isFresh.has(edge.target().id()) ? 70 : 110,
          nodeRepulsion: (node: cytoscape.NodeSingular) => (isFresh.has(node.id()) ? 6000 : 16000),
          ...(fixed.length ? { fixedNodeConstraint: fixed } : {}),
        } as cytoscape.LayoutOptions)
        .run(),
    );
  }
  cy.fit(undefined, 30);
  // A small walk fitted to the box would be drawn huge.
  if (cy.zoom() > 1.2) {
    cy.zoom(1.2);
    cy.center();
  }
  const remember = () => cy.nodes().forEach((node) => void memory.set(node.id(), { ...node.position() }));
  remember();

  // What is selected, and the keyboard's place on the drawing.
  let selected: Selection = null;
  // The elements drawn faded and the one drawn chosen, kept so that a new selection touches
  // only the elements whose state changes (a click on a hub of 500 touches none) without
  // asking cytoscape which elements carry a class.
  let faded = cy.collection();
  let chosen = cy.collection();
  const show = (selection: Selection) => {
    // The same selection again (a second click on it): nothing to restyle.
    if (selection?.kind === selected?.kind && selection?.id === selected?.id) return;
    selected = selection;
    cy.batch(() => {
      const element = selection ? cy.getElementById(selection.id) : cy.collection();
      const lit = element.empty()
        ? cy.elements()
        : selection?.kind === "node"
          ? (element as cytoscape.NodeSingular).closedNeighborhood()
          : element.union((element as cytoscape.EdgeSingular).connectedNodes());
      // By id: cytoscape's own set operations (not, difference, has) make a collection for
      // each element they test.
      const litIds = new Set(lit.map((e) => e.id()));
      const fadedIds = new Set(faded.map((e) => e.id()));
      const fade = cy.elements().filter((e) => !litIds.has(e.id()));
      faded.filter((e) => litIds.has(e.id())).removeClass("faded");
      fade.filter((e) => !fadedIds.has(e.id())).addClass("faded");
      faded = fade;
      if (chosen.id() !== element.id()) chosen.removeClass("chosen");
      element.addClass("chosen");
      chosen = element;
    });
  };
  cy.on("tap", "node, edge", (event) => {
    const element = event.target as cytoscape.SingularElementArgument;
    handlers.select({ kind: element.isNode() ? "node" : "edge", id: element.id() }, "pointer");
  });
  cy.on("tap", (event) => {
    if (event.target === cy) handlers.select(null, "pointer");
  });
  cy.on("dbltap", "node", (event) => handlers.expand((event.target as cytoscape.NodeSingular).id()));
  cy.on("dragfree", "node", remember);

  // The tooltip: what an edge asserts, or a node's name and labels, where the pointer is.
  const tooltip = container.parentElement?.querySelector<HTMLElement>(".graph-tooltip") ?? null;
  cy.on("mouseover", "node, edge", (event) => {
    if (!tooltip) return;
    const element = event.target as cytoscape.SingularElementArgument;
    const data = element.data() as GraphNode & GraphEdge;
    tooltip.textContent = element.isNode()
      ? `${data.name} (${data.labels.join(", ") || "no label"})`
      : `${data.description ?? data.type} — ${data.kind}${data.weight === null ? "" : `, weight ${data.weight}`}`;
    const point = event.renderedPosition ?? { x: 0, y: 0 };
    tooltip.style.left = `${Math.round(point.x + 12)}px`;
    tooltip.style.top = `${Math.round(point.y + 12)}px`;
    tooltip.hidden = false;
  });
  cy.on("mouseout viewport", () => {
    if (tooltip) tooltip.hidden = true;
  });

  container.addEventListener("keydown", (event) => {
    if (event.target !== container) return;
    const step = ARROWS[event.key];
    if (step) {
      event.preventDefault();
      const next = nearest(cy, selected, step);
      if (next) {
        handlers.select({ kind: "node", id: next.id() }, "keyboard");
        if (!next.renderedBoundingBox().w || outside(cy, next)) cy.center(next);
      }
    } else if (event.key === "Enter" && selected?.kind === "node") {
      event.preventDefault();
      handlers.expand(selected.id);
    } else if (event.key === "Escape" && selected) {
      event.preventDefault();
      handlers.select(null, "keyboard");
    }
  });

  // The box changes with the window, or a phone's sheet: cytoscape must know, or a tap lands
  // where a node was. (The observer's first call, at once, is the size cytoscape has.)
  let observed = false;
  const resized = new ResizeObserver(() => {
    if (observed) cy.resize();
    observed = true;
  });
  resized.observe(container);
  container.dataset["drawMs"] = (performance.now() - started).toFixed(1);
  container.dataset["nodes"] = String(nodes.length);
  container.dataset["edges"] = String(edges.length);
  return {
    cy,
    show,
    hideLabels: (groups) =>
      cy.batch(() => cy.nodes().forEach((node) => void node.toggleClass("hidden", groups.has(node.data("group"))))),
    destroy: () => {
      resized.disconnect();
      cy.destroy();
    },
  };
}

const ARROWS: Record<string, { x: number; y: number }> = {
  ArrowRight: { x: 1, y: 0 },
  ArrowLeft: { x: -1, y: 0 },
  ArrowUp: { x: 0, y: -1 },
  ArrowDown: { x: 0, y: 1 },
};

/** The visible node nearest to the selection (the start when nothing is selected) in the
 * arrow's direction, favouring those in line with it; the start itself first of all. */
function nearest(
  cy: cytoscape.Core,
  selected: Selection,
  step: { x: number; y: number },
): cytoscape.NodeSingular | null {
  const visible = cy.nodes().not(".hidden") as cytoscape.NodeCollection;
  const from =
    selected?.kind === "node" ? cy.getElementById(selected.id)
    : selected?.kind === "edge" ? (cy.getElementById(selected.id) as cytoscape.EdgeSingular).source()
    : null;
  if (!from || from.empty()) {
    const start = visible.filter("[distance = 0]");
    const first = (start.nonempty() ? start : visible).first() as cytoscape.NodeSingular;
    return first.nonempty() ? first : null;
  }
  const at = from.position();
  let best: cytoscape.NodeSingular | null = null;
  let bestScore = Infinity;
  visible.forEach((node) => {
    if (node.id() === from.id()) return;
    const dx = node.position().x - at.x;
    const dy = node.position().y - at.y;
    const along = dx * step.x + dy * step.y;
    if (along <= 0) return;
    const across = Math.abs(dx * step.y - dy * step.x);
    const score = along + 2 * across;
    if (score < bestScore) {
      bestScore = score;
      best = node;
    }
  });
  return best as cytoscape.NodeSingular | null;
}

function outside(cy: cytoscape.Core, node: cytoscape.NodeSingular): boolean {
  const box = node.renderedBoundingBox();
  return box.x1 < 0 || box.y1 < 0 || box.x2 > cy.width() || box.y2 > cy.height();
}
