// Moving between views: every move is a URL (pushState), so back and forward and a reload show
// the same view. Links are real <a href> elements: Enter follows them, a new tab opens them.
//
// Where the keyboard was is kept with each history entry (issue 40 §4, "Where focus goes"):
// before a move, the element that has the focus is noted in the entry being left (its
// `data-key`, e.g. the relation or the graph), and Back puts the focus there again once the
// view is drawn. A selection in a walk is part of its URL (`sel=`), replaced as it changes.

import { h } from "./dom";
import { routeUrl, type Route, type View } from "./route";

let show: (route: Route) => void = () => undefined;
let current: () => Route = () => ({ view: { view: "home" }, scope: { workspaces: [], documentIds: [] } });
let update: (route: Route) => void = () => undefined;

export function startNavigation(
  render: (route: Route) => void,
  route: () => Route,
  replaceRoute: (route: Route) => void,
): void {
  show = render;
  current = route;
  update = replaceRoute;
}

export function currentRoute(): Route {
  return current();
}

/** The page's title: what the view shows, then the app's name. */
export function setTitle(...parts: string[]): void {
  document.title = [...parts, "Evidence explorer"].join(" — ");
}

/** The focused element's key, kept in the entry being left, for Back to focus again. */
function noteFocus(): void {
  const key = document.activeElement?.closest<HTMLElement>("[data-key]")?.dataset["key"];
  history.replaceState({ ...(history.state ?? {}), focus: key ?? null }, "");
}

/** The key of the element to focus when this entry is shown again (null: the view's title). */
export function focusKey(): string | null {
  const state: unknown = history.state;
  return typeof state === "object" && state !== null && "focus" in state && typeof state.focus === "string"
    ? state.focus
    : null;
}

/** Go to `view` in the current scope (or `route` whole), adding a history entry. `focus`: the
 * key of the element to focus in the new view (by default its title). */
export function navigate(view: View, replace = false, focus: string | null = null): void {
  const route = { view, scope: current().scope };
  go(route, replace, focus);
}

export function go(route: Route, replace = false, focus: string | null = null): void {
  const url = routeUrl(route);
  if (replace) history.replaceState({ focus }, "", url);
  else {
    noteFocus();
    history.pushState({ focus }, "", url);
  }
  show(route);
}

/** Change the current entry's URL to `view` without drawing anything (a selection). */
export function record(view: View): void {
  const route = { view, scope: current().scope };
  history.replaceState(history.state, "", routeUrl(route));
  update(route);
}

export function link(view: View, ...children: (Node | string)[]): HTMLAnchorElement {
  const anchor = h("a", { href: routeUrl({ view, scope: current().scope }) }, ...children);
  anchor.addEventListener("click", (event) => {
    if (event.ctrlKey || event.metaKey || event.shiftKey || event.button !== 0) return;
    event.preventDefault();
    navigate(view);
  });
  return anchor;
}
