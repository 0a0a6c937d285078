// The explorer's shell: the header (search, its options, the scope, the token), and the view the
// URL names, drawn again on every navigation, back and forward included. The search options and
// the scope fold away, so a walk's graph has the screen (issue 40 §2).

import "./style.css";
import { ApiError, currentToken, run, setToken } from "./api";
import { h, replace } from "./dom";
import { showEntity } from "./entity";
import { errorPanel } from "./errors";
import { ExplorerChoicesDocument, type ExplorerChoicesQuery } from "./gql/graphql";
import { focusKey, go, setTitle, startNavigation } from "./nav";
import { showPassage } from "./passage";
import { parseRoute, type Route } from "./route";
import { searchForm, showSearch } from "./search";
import { showWalk } from "./walk";

let route: Route = parseRoute(location.search);
let labels: ExplorerChoicesQuery["entityLabels"] = [];
// The workspaces the caller may name: a list (with AUTH_MODE=none, those that hold a
// document), or undefined while not known (no token yet, or the choices could not be read).
let granted: string[] | undefined;
let authenticationOn = currentToken() !== null;
let labelsError: unknown = null;

const header = document.getElementById("explorer-header")!;
const main = document.getElementById("explorer-view")!;

function tokenForm(): HTMLElement | null {
  if (!authenticationOn) return null;
  const input = h("input", {
    id: "token",
    name: "token",
    type: "password",
    autocomplete: "off",
    value: currentToken() ?? "",
  });
  const form = h(
    "form",
    { class: "token" },
    h("label", { for: "token" }, "Token"),
    input,
    h("button", { type: "submit" }, "Use token"),
  );
  form.addEventListener("submit", (event) => {
    event.preventDefault();
    setToken(input.value);
    void start();
  });
  // Once a token is in use it folds away like the scope; without one it is what the page asks.
  if (currentToken() === null || labelsError !== null) return form;
  return h("details", { class: "token-panel" }, h("summary", {}, "Token"), form);
}

/** A labelled comma-separated text field with its hint. */
function textField(id: string, name: string, label: string, values: string[], hint: string): HTMLElement[] {
  return [
    h("label", { for: id }, label),
    h("input", { id, name, type: "text", value: values.join(","), "aria-describedby": `${id}-hint` }),
    h("span", { id: `${id}-hint`, class: "hint" }, hint),
  ];
}

/** The workspace choices: one checkbox per workspace the caller may read (none checked: all of
 * them), plus any the link names that is not one of them, so it can be unchecked; a text field
 * while the list is not known. */
function workspaceChoices(chosen: string[]): HTMLElement[] {
  if (granted === undefined) {
    return textField("scope-workspaces", "ws", "Workspaces", chosen, "empty: every workspace your token grants");
  }
  const names = [...new Set([...granted, ...chosen])].sort();
  const grantedNames = new Set(granted);
  return [
    h(
      "fieldset",
      { class: "workspaces", "aria-describedby": "scope-workspaces-hint" },
      h("legend", {}, "Workspaces you may read"),
      names.length
        ? names.map((name) =>
            h(
              "label",
              { class: "workspace-choice" },
              h("input", { type: "checkbox", name: "ws", value: name, checked: chosen.includes(name) }),
              grantedNames.has(name) ? name : `${name} (not granted)`,
            ),
          )
        : h("span", { class: "hint" }, "There is no workspace you may read."),
      h("span", { id: "scope-workspaces-hint", class: "hint" }, "none checked: all of them"),
    ),
  ];
}

function scopeForm(): HTMLElement {
  const { workspaces, documentIds } = route.scope;
  const said = [
    workspaces.length ? workspaces.join(", ") : "every workspace",
    documentIds.length ? `${documentIds.length} documents` : "",
  ].filter(Boolean);
  const form = h(
    "form",
    { class: "scope" },
    workspaceChoices(workspaces),
    textField("scope-documents", "docs", "Document ids", documentIds, "comma-separated; empty: every document"),
    h("button", { type: "submit" }, "Apply scope"),
  );
  form.addEventListener("submit", (event) => {
    event.preventDefault();
    const data = new FormData(form);
    // A checkbox sends one name, the text field a comma-separated list: read both alike.
    const list = (name: string) =>
      data
        .getAll(name)
        .flatMap((value) => String(value).split(","))
        .map((item) => item.trim())
        .filter(Boolean);
    go({ view: route.view, scope: { workspaces: list("ws"), documentIds: list("docs") } });
  });
  return h("details", { class: "scope-panel" }, h("summary", {}, "Scope", h("span", { class: "said" }, `: ${said.join(", ")}`)), form);
}

function renderHeader(): void {
  const view = route.view.view === "search" ? route.view : null;
  const [search, options] = searchForm(view, labels);
  replace(
    header,
    h("h1", {}, h("a", { href: location.pathname, class: "home" }, "Evidence explorer")),
    search,
    h("div", { class: "controls" }, options, scopeForm(), tokenForm()),
  );
}

/** After a view is drawn: the focus where Back left it (the element its entry names), else on
 * the view's title; and the view scrolled to what it points at (an opened passage's mention). */
function placeFocus(): void {
  const key = focusKey();
  const kept = key ? main.querySelector<HTMLElement>(`[data-key="${CSS.escape(key)}"]`) : null;
  const title = main.querySelector<HTMLElement>(".view-title, [role=alert] h2");
  (kept ?? title)?.focus({ preventScroll: true });
  const target = main.querySelector<HTMLElement>("[data-scroll-to]");
  if (target) target.scrollIntoView({ block: "center" });
  else if (kept) kept.scrollIntoView({ block: "nearest" });
  else window.scrollTo(0, 0);
}

function show(next: Route, focus = true): void {
  route = next;
  renderHeader();
  main.dataset["view"] = next.view.view;
  const labelOrder = labels.map((label) => label.label);
  const done = (() => {
    const view = next.view;
    switch (view.view) {
      case "search":
        return showSearch(main, view, next.scope);
      case "entity":
        return showEntity(main, view.id, next.scope);
      case "walk":
        return showWalk(main, view, next.scope, labelOrder);
      case "passage":
        return showPassage(main, view.id, view.marks, next.scope);
      case "home":
        setTitle("Search the graph");
        replace(
          main,
          labelsError ? errorPanel(labelsError, () => void start()) : null,
          h("h2", { tabindex: -1, class: "view-title" }, "Search the graph, read the evidence"),
          h(
            "p",
            {},
            "Search for an entity, open it to read the passages that support it, and walk its " +
              "relations. Every answer shows its evidence.",
          ),
        );
        return Promise.resolve();
    }
  })();
  void done.then(() => {
    if (focus) placeFocus();
  });
}

/** The header's choices, labels and the workspaces to offer (one request when the page opens
 * or the token changes), then the view the URL names. */
async function start(): Promise<void> {
  labelsError = null;
  try {
    const choices = await run(ExplorerChoicesDocument, {});
    labels = choices.entityLabels;
    granted = choices.grantedWorkspaces ?? undefined;
  } catch (error) {
    labels = [];
    granted = undefined;
    labelsError = error;
    if (error instanceof ApiError && error.code === "UNAUTHENTICATED") authenticationOn = true;
  }
  show(route, false);
}

startNavigation(show, () => route, (next) => (route = next));
window.addEventListener("popstate", () => show(parseRoute(location.search)));
void start();
