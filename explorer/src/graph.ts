// Drawing a walk with cytoscape.js (docs/explorer.md says why this library): the start in the
// middle, each ring one step further out, ASSERTION edges solid, PATH edges dashed. The positions
// are computed, not simulated, so the same walk is drawn the same way every time and 500 nodes
// are placed at once.

import cytoscape from "cytoscape";

export interface GraphNode {
  id: string;
  name: string;
  distance: number; // steps from the start
  expanded: boolean;
}

export interface GraphEdge {
  id: string;
  source: string;
  target: string;
  type: string;
  kind: "ASSERTION" | "PATH";
}

export interface GraphHandlers {
  node: (id: string) => void;
  edge: (id: string) => void;
}

/** The style sheet, whole before the graph is made: changing it afterwards restyles every
 * element again. A large walk gets no edge labels, node labels only when zoomed in, and straight
 * edges (a bezier's control points are worked out per edge; a walk has no parallel edges to bend
 * apart). */
function styleFor(many: boolean, edgeLabels: boolean): cytoscape.StylesheetJson {
  return [
    {
      selector: "node",
      style: {
        label: "data(name)",
        "background-color": "#2b6cb0",
        color: "#1a202c",
        "font-size": 11,
        "text-valign": "bottom",
        "text-margin-y": 4,
        width: 18,
        height: 18,
        ...(many ? { "min-zoomed-font-size": 10 } : {}),
      },
    },
    { selector: "node[distance = 0]", style: { "background-color": "#c05621", width: 26, height: 26 } },
    { selector: "node[?expanded]", style: { "border-width": 3, "border-color": "#c05621" } },
    {
      selector: "edge",
      style: {
        width: 2,
        "line-color": "#4a5568",
        "target-arrow-color": "#4a5568",
        "target-arrow-shape": "triangle",
        "curve-style": many ? "straight" : "bezier",
        color: "#4a5568",
        ...(edgeLabels ? { label: "data(type)", "font-size": 8, "text-rotation": "autorotate" } : {}),
      },
    },
    { selector: 'edge[kind = "PATH"]', style: { "line-style": "dashed", "line-dash-pattern": [6, 4] } },
    { selector: ":selected", style: { "background-color": "#d69e2e", "line-color": "#d69e2e" } },
  ];
}

/** Concentric rings around the start, one per step, computed here in one pass (cytoscape's
 * concentric layout sorts and moves the nodes one by one, with an event each): each ring's
 * radius leaves `spacing` between neighbours and at least one ring's width to the one inside. */
function ringPositions(nodes: GraphNode[], spacing: number): Map<string, cytoscape.Position> {
  const rings = new Map<number, GraphNode[]>();
  for (const node of nodes) {
    const ring = rings.get(node.distance) ?? [];
    ring.push(node);
    rings.set(node.distance, ring);
  }
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

export function drawGraph(
  container: HTMLElement,
  nodes: GraphNode[],
  edges: GraphEdge[],
  handlers: GraphHandlers,
): cytoscape.Core {
  const started = performance.now();
  const many = nodes.length > 150;
  const positions = ringPositions(nodes, many ? 22 : 48);
  const cy = cytoscape({
    container,
    elements: [
      ...nodes.map((node) => ({
        group: "nodes" as const,
        data: { ...node },
        position: positions.get(node.id) ?? { x: 0, y: 0 },
      })),
      ...edges.map((edge) => ({ group: "edges" as const, data: { ...edge } })),
    ],
    style: styleFor(many, edges.length <= 40),
    layout: { name: "preset", fit: true, padding: 30 },
    // Labels of hundreds of nodes are unreadable and slow: shown once zoomed in.
    minZoom: 0.05,
    maxZoom: 4,
    hideEdgesOnViewport: many,
    textureOnViewport: many,
  });
  // A small walk fitted to the box would be drawn huge: no closer than life size.
  if (cy.zoom() > 1) {
    cy.zoom(1);
    cy.center();
  }
  cy.on("tap", "node", (event) => handlers.node(String(event.target.id())));
  cy.on("tap", "edge", (event) => handlers.edge(String(event.target.id())));
  container.dataset["drawMs"] = (performance.now() - started).toFixed(1);
  container.dataset["nodes"] = String(nodes.length);
  container.dataset["edges"] = String(edges.length);
  return cy;
}
