// The view in the URL's query string, so a search, an entity, a walk and a passage each have a
// deep link and the browser's back and forward move between them. The token is never here.

export type SearchMode = "HYBRID" | "LEXICAL" | "SEMANTIC";

export interface Scope {
  workspaces: string[];
  documentIds: string[];
}

export interface WalkBounds {
  depth: number;
  maxNodes: number;
  maxEdges: number;
  maxCandidates: number;
  relationTypes: string[] | null;
}

/** What is selected in a walk: an entity or a relation, by id. */
export type Selection = { kind: "node" | "edge"; id: string } | null;

export type View =
  | { view: "home" }
  | { view: "search"; query: string; mode: SearchMode; labels: string[]; limit: number }
  | { view: "entity"; id: string }
  | { view: "walk"; id: string; bounds: WalkBounds; expand: string[]; selected?: Selection }
  | { view: "passage"; id: string; marks: string[] };

export interface Route {
  view: View;
  scope: Scope;
}

// The schema's limits (contract §5): a link may ask for no more than the service allows.
export const BOUND_LIMITS = {
  depth: [1, 2],
  maxNodes: [1, 500],
  maxEdges: [1, 1000],
  maxCandidates: [1, 5000],
} as const;
export const DEFAULT_BOUNDS: WalkBounds = {
  depth: 1,
  maxNodes: 50,
  maxEdges: 100,
  maxCandidates: 500,
  relationTypes: null,
};
const MODES: SearchMode[] = ["HYBRID", "LEXICAL", "SEMANTIC"];
// Hits per page, and the most a search may ask for (the schema's `limit` range).
export const SEARCH_PAGE = 10;
export const SEARCH_LIMIT = 100;

function selection(value: string | null): Selection {
  const match = /^([ne]):(.+)$/.exec(value ?? "");
  if (!match) return null;
  return { kind: match[1] === "n" ? "node" : "edge", id: match[2]! };
}

function list(value: string | null): string[] {
  return (value ?? "")
    .split(",")
    .map((item) => item.trim())
    .filter((item) => item !== "");
}

function bounded(value: string | null, fallback: number, [low, high]: readonly [number, number]) {
  const number = Number.parseInt(value ?? "", 10);
  return Number.isFinite(number) ? Math.min(high, Math.max(low, number)) : fallback;
}

export function parseRoute(search: string): Route {
  const params = new URLSearchParams(search);
  const scope = { workspaces: list(params.get("ws")), documentIds: list(params.get("docs")) };
  const id = (name: string) => params.get(name) ?? "";
  let view: View = { view: "home" };
  if (params.has("walk")) {
    const types = params.get("types");
    view = {
      view: "walk",
      id: id("walk"),
      bounds: {
        depth: bounded(params.get("depth"), DEFAULT_BOUNDS.depth, BOUND_LIMITS.depth),
        maxNodes: bounded(params.get("nodes"), DEFAULT_BOUNDS.maxNodes, BOUND_LIMITS.maxNodes),
        maxEdges: bounded(params.get("edges"), DEFAULT_BOUNDS.maxEdges, BOUND_LIMITS.maxEdges),
        maxCandidates: bounded(
          params.get("candidates"),
          DEFAULT_BOUNDS.maxCandidates,
          BOUND_LIMITS.maxCandidates,
        ),
        relationTypes: types === null ? null : list(types),
      },
      expand: list(params.get("expand")),
      selected: selection(params.get("sel")),
    };
  } else if (params.has("entity")) {
    view = { view: "entity", id: id("entity") };
  } else if (params.has("passage")) {
    // At most two names to mark (an edge's ends), each as long as a name may sensibly be.
    const marks = params.getAll("mark").filter(Boolean).slice(0, 2).map((mark) => mark.slice(0, 200));
    view = { view: "passage", id: id("passage"), marks };
  } else if (params.has("q")) {
    const mode = params.get("mode") as SearchMode | null;
    view = {
      view: "search",
      query: id("q"),
      mode: mode !== null && MODES.includes(mode) ? mode : "HYBRID",
      labels: list(params.get("labels")),
      limit: bounded(params.get("limit"), SEARCH_PAGE, [SEARCH_PAGE, SEARCH_LIMIT]),
    };
  }
  return { view, scope };
}

export function routeUrl(route: Route): string {
  const params = new URLSearchParams();
  const view = route.view;
  switch (view.view) {
    case "search":
      params.set("q", view.query);
      params.set("mode", view.mode);
      if (view.labels.length) params.set("labels", view.labels.join(","));
      if (view.limit > SEARCH_PAGE) params.set("limit", String(view.limit));
      break;
    case "entity":
      params.set("entity", view.id);
      break;
    case "passage":
      params.set("passage", view.id);
      for (const mark of view.marks) params.append("mark", mark);
      break;
    case "walk":
      params.set("walk", view.id);
      params.set("depth", String(view.bounds.depth));
      params.set("nodes", String(view.bounds.maxNodes));
      params.set("edges", String(view.bounds.maxEdges));
      params.set("candidates", String(view.bounds.maxCandidates));
      if (view.bounds.relationTypes !== null) {
        params.set("types", view.bounds.relationTypes.join(","));
      }
      if (view.expand.length) params.set("expand", view.expand.join(","));
      if (view.selected) params.set("sel", `${view.selected.kind === "node" ? "n" : "e"}:${view.selected.id}`);
      break;
    case "home":
      break;
  }
  if (route.scope.workspaces.length) params.set("ws", route.scope.workspaces.join(","));
  if (route.scope.documentIds.length) params.set("docs", route.scope.documentIds.join(","));
  const query = params.toString();
  return query ? `?${query}` : location.pathname;
}
