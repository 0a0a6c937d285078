// The explorer's shell: the header (search, scope, token), and the view the URL names, drawn
// again on every navigation, back and forward included.

import "./style.css";
import { ApiError, currentToken, run, setToken } from "./api";
import { h, replace } from "./dom";
import { showEntity } from "./entity";
import { errorPanel } from "./errors";
import { ExplorerChoicesDocument, type ExplorerChoicesQuery } from "./gql/graphql";
import { go, startNavigation } from "./nav";
import { showPassage } from "./passage";
import { parseRoute, type Route } from "./route";
import { searchForm, showSearch } from "./search";
import { showWalk } from "./walk";

let route: Route = parseRoute(location.search);
let labels: ExplorerChoicesQuery["entityLabels"] = [];
// The workspaces the token grants: a list, null for every workspace (AUTH_MODE=none), or
// undefined while not known (no token yet, or the choices could not be read).
let granted: string[] | null | undefined;
let authenticationOn = currentToken() !== null;
let labelsError: unknown = null;

const header = document.getElementById("explorer-header")!;
const main = document.getElementById("explorer-view")!;

function tokenForm(): HTMLFormElement | null {
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
  return form;
}

/** A labelled comma-separated text field with its hint. */
function textField(id: string, name: string, label: string, values: string[], hint: string): HTMLElement[] {
  return [
    h("label", { for: id }, label),
    h("input", { id, name, type: "text", value: values.join(","), "aria-describedby": `${id}-hint` }),
    h("span", { id: `${id}-hint`, class: "hint" }, hint),
  ];
}

/** The workspace choices: one checkbox per workspace the token grants (none checked: all of
 * them), plus any the link names that it does not grant, so they can be unchecked. A token that
 * grants every workspace, or a grant not yet known, gets a text field instead. */
function workspaceChoices(chosen: string[]): HTMLElement[] {
  if (granted === null || granted === undefined) {
    const hint =
      granted === null ? "empty: every workspace (your token grants all)" : "empty: every workspace your token grants";
    return textField("scope-workspaces", "ws", "Workspaces", chosen, hint);
  }
  const names = [...new Set([...granted, ...chosen])].sort();
  const grantedNames = new Set(granted);
  return [
    h(
      "fieldset",
      { class: "workspaces", "aria-describedby": "scope-workspaces-hint" },
      h("legend", {}, "Workspaces your token grants"),
      names.length
        ? names.map((name) =>
            h(
              "label",
              { class: "workspace-choice" },
              h("input", { type: "checkbox", name: "ws", value: name, checked: chosen.includes(name) }),
              grantedNames.has(name) ? name : `${name} (not granted)`,
            ),
          )
        : h("span", { class: "hint" }, "Your token grants no workspace."),
      h("span", { id: "scope-workspaces-hint", class: "hint" }, "none checked: all of them"),
    ),
  ];
}

function scopeForm(): HTMLFormElement {
  const form = h(
    "form",
    { class: "scope" },
    h(
      "fieldset",
      {},
      h("legend", {}, "Scope"),
      workspaceChoices(route.scope.workspaces),
      textField(
        "scope-documents",
        "docs",
        "Document ids",
        route.scope.documentIds,
        "comma-separated; empty: every document",
      ),
      h("button", { type: "submit" }, "Apply scope"),
    ),
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
  return form;
}

function renderHeader(): void {
  const view = route.view.view === "search" ? route.view : null;
  replace(
    header,
    h("h1", {}, "Evidence explorer"),
    h("div", { class: "controls" }, tokenForm(), scopeForm()),
    searchForm(view, labels),
  );
}

function show(next: Route, focus = true): void {
  route = next;
  renderHeader();
  const done = (() => {
    const view = next.view;
    switch (view.view) {
      case "search":
        return showSearch(main, view, next.scope);
      case "entity":
        return showEntity(main, view.id, next.scope);
      case "walk":
        return showWalk(main, view, next.scope);
      case "passage":
        return showPassage(main, view.id, next.scope);
      case "home":
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
    if (focus) main.querySelector<HTMLElement>(".view-title, [role=alert] h2")?.focus();
  });
}

/** The header's choices, labels and granted workspaces (one request when the page opens or the
 * token changes), then the view the URL names. */
async function start(): Promise<void> {
  labelsError = null;
  try {
    const choices = await run(ExplorerChoicesDocument, {});
    labels = choices.entityLabels;
    granted = choices.grantedWorkspaces ?? null;
  } catch (error) {
    labels = [];
    granted = undefined;
    labelsError = error;
    if (error instanceof ApiError && error.code === "UNAUTHENTICATED") authenticationOn = true;
  }
  show(route, false);
}

startNavigation(show, () => route);
window.addEventListener("popstate", () => show(parseRoute(location.search)));
void start();
