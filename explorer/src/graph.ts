// Drawing a walk with cytoscape.js (docs/explorer.md says why this library): the start in the
// middle, each ring one step further out, ASSERTION edges solid, PATH edges dashed. The layout is
// computed, not simulated, so the same walk is drawn the same way every time and 500 nodes are
// placed at once.

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

const STYLE: cytoscape.StylesheetJson = [
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
      "curve-style": "bezier",
      label: "data(type)",
      "font-size": 8,
      color: "#4a5568",
      "text-rotation": "autorotate",
    },
  },
  { selector: 'edge[kind = "PATH"]', style: { "line-style": "dashed", "line-dash-pattern": [6, 4] } },
  { selector: ":selected", style: { "background-color": "#d69e2e", "line-color": "#d69e2e" } },
];

export function drawGraph(
  container: HTMLElement,
  nodes: GraphNode[],
  edges: GraphEdge[],
  handlers: GraphHandlers,
): cytoscape.Core {
  const started = performance.now();
  const deepest = Math.max(0, ...nodes.map((node) => node.distance));
  const many = nodes.length > 150;
  const cy = cytoscape({
    container,
    elements: [
      ...nodes.map((node) => ({ group: "nodes" as const, data: { ...node } })),
      ...edges.map((edge) => ({ group: "edges" as const, data: { ...edge } })),
    ],
    style: STYLE,
    layout: {
      name: "concentric",
      concentric: (node: cytoscape.NodeSingular) => deepest - Number(node.data("distance")),
      levelWidth: () => 1,
      minNodeSpacing: many ? 4 : 30,
      animate: false,
    },
    // Labels of hundreds of nodes are unreadable and slow: shown once zoomed in.
    minZoom: 0.05,
    maxZoom: 4,
    hideEdgesOnViewport: many,
    textureOnViewport: many,
  });
  if (many) cy.style().selector("node").style("min-zoomed-font-size", 10).update();
  if (edges.length > 40) cy.style().selector("edge").style("label", "").update();
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
