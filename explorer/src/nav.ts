// Moving between views: every move is a URL (pushState), so back and forward and a reload show
// the same view. Links are real <a href> elements: Enter follows them, a new tab opens them.

import { h } from "./dom";
import { routeUrl, type Route, type View } from "./route";

let show: (route: Route) => void = () => undefined;
let current: () => Route = () => ({ view: { view: "home" }, scope: { workspaces: [], documentIds: [] } });

export function startNavigation(render: (route: Route) => void, route: () => Route): void {
  show = render;
  current = route;
}

export function currentRoute(): Route {
  return current();
}

/** Go to `view` in the current scope (or `route` whole), adding a history entry. */
export function navigate(view: View, replace = false): void {
  const route = { view, scope: current().scope };
  go(route, replace);
}

export function go(route: Route, replace = false): void {
  const url = routeUrl(route);
  if (replace) history.replaceState(null, "", url);
  else history.pushState(null, "", url);
  show(route);
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
