// Search: a query box, the mode, the labels (from `entityLabels`); hits best first with their
// status (UNSUPPORTED shown, never hidden), score, ranks and evidence with the query's words
// marked.

import { run } from "./api";
import { h, queryWords, replace } from "./dom";
import { errorPanel } from "./errors";
import { counted } from "./counted";
import { ExplorerSearchDocument, type ExplorerChoicesQuery, type ExplorerSearchQuery } from "./gql/graphql";
import { link, navigate } from "./nav";
import { passageList } from "./passages";
import type { Scope, SearchMode, View } from "./route";

type SearchView = Extract<View, { view: "search" }>;
type Hit = ExplorerSearchQuery["searchEntities"][number];

export function scopeInput(scope: Scope) {
  if (!scope.workspaces.length && !scope.documentIds.length) return null;
  return {
    workspaces: scope.workspaces.length ? scope.workspaces : null,
    documentIds: scope.documentIds.length ? scope.documentIds : null,
  };
}

export function searchForm(
  view: SearchView | null,
  labels: ExplorerChoicesQuery["entityLabels"],
): HTMLFormElement {
  const query = h("input", {
    id: "search-query",
    name: "q",
    type: "search",
    required: true,
    value: view?.query ?? "",
    placeholder: "a name or a description",
  });
  const mode = h(
    "select",
    { id: "search-mode", name: "mode" },
    (["HYBRID", "LEXICAL", "SEMANTIC"] as SearchMode[]).map((value) =>
      h("option", { value, selected: (view?.mode ?? "HYBRID") === value }, value.toLowerCase()),
    ),
  );
  const labelBoxes = labels.map(({ label, fulltextIndex, vectorIndex }) => {
    const ready = fulltextIndex === "ONLINE" && vectorIndex === "ONLINE";
    return h(
      "label",
      { class: "label-choice" },
      h("input", {
        type: "checkbox",
        name: "labels",
        value: label,
        checked: view?.labels.includes(label) ?? false,
      }),
      ready ? label : `${label} (indexes ${fulltextIndex} / ${vectorIndex})`,
    );
  });
  const form = h(
    "form",
    { class: "search-form", role: "search" },
    h("label", { for: "search-query" }, "Search entities"),
    query,
    h("label", { for: "search-mode" }, "Mode"),
    mode,
    labelBoxes.length
      ? h("fieldset", { class: "labels" }, h("legend", {}, "Only these labels"), labelBoxes)
      : null,
    h("button", { type: "submit" }, "Search"),
  );
  form.addEventListener("submit", (event) => {
    event.preventDefault();
    const data = new FormData(form);
    navigate({
      view: "search",
      query: String(data.get("q") ?? "").trim(),
      mode: String(data.get("mode") ?? "HYBRID") as SearchMode,
      labels: data.getAll("labels").map(String),
    });
  });
  return form;
}

function ranks(hit: Hit): string {
  const parts = [`score ${hit.score.toFixed(4)}`];
  parts.push(hit.lexicalRank === null ? "lexical: not found" : `lexical rank ${hit.lexicalRank}`);
  parts.push(
    hit.semanticRank === null ? "semantic: not found" : `semantic rank ${hit.semanticRank}`,
  );
  return parts.join(" · ");
}

function hitItem(hit: Hit, words: string[], index: number): HTMLElement {
  return h(
    "li",
    { class: "hit", "data-status": hit.status },
    h(
      "h3",
      {},
      h("span", { class: "rank" }, `${index + 1}.`),
      " ",
      link({ view: "entity", id: hit.entity.id }, hit.entity.name),
      " ",
      h("span", { class: `status status-${hit.status.toLowerCase()}` }, hit.status),
    ),
    h("p", { class: "meta" }, `${hit.entity.labels.join(", ") || "no label"} · ${ranks(hit)}`),
    passageList(
      hit.evidence,
      words,
      hit.status === "UNSUPPORTED"
        ? "UNSUPPORTED: passages mention it, but none is current — it has no evidence."
        : "No visible passage supports it.",
    ),
  );
}

export async function showSearch(target: HTMLElement, view: SearchView, scope: Scope) {
  const retry = () => void showSearch(target, view, scope);
  replace(target, h("p", { class: "loading", role: "status" }, `Searching for “${view.query}”…`));
  try {
    const data = await run(ExplorerSearchDocument, {
      query: view.query,
      mode: view.mode,
      labels: view.labels.length ? view.labels : null,
      scope: scopeInput(scope),
      limit: 10,
    });
    const words = queryWords(view.query);
    const hits = data.searchEntities;
    replace(
      target,
      h("h2", { tabindex: -1, class: "view-title" }, `Results for “${view.query}”`),
      h("p", { role: "status" }, `${counted(hits.length, "entity", "entities")} (${view.mode.toLowerCase()})`),
      hits.length
        ? h("ol", { class: "hits" }, hits.map((hit, index) => hitItem(hit, words, index)))
        : h("p", { class: "empty" }, "Nothing in your scope matches."),
    );
  } catch (error) {
    replace(target, errorPanel(error, retry));
  }
}
