// Search: a query box, the mode, the labels (from `entityLabels`); hits best first with their
// status (UNSUPPORTED shown, never hidden), how each was found in plain words (by name, by
// meaning only), and evidence anchored on the hit's name with the query's words marked.
//
// Search that forgives (issue 40 §3): a query with no letter or digit is refused here, before
// anything is sent; when no hit's name holds the query's words, the page says the hits were
// found by meaning only and offers the names closest to what was typed ("did you mean",
// `nameSuggestions`) as searches of their own, never in place of the answer; "More results"
// asks for ten more.

import { run } from "./api";
import { entityExcerpt } from "./anchor";
import { counted } from "./counted";
import { h, replace } from "./dom";
import { errorPanel } from "./errors";
import { ExplorerSearchDocument, type ExplorerChoicesQuery, type ExplorerSearchQuery } from "./gql/graphql";
import { link, navigate, setTitle } from "./nav";
import { passageCard, passageList } from "./passages";
import { roving } from "./roving";
import { SEARCH_LIMIT, SEARCH_PAGE, type Scope, type SearchMode, type View } from "./route";
import { plainWords } from "./words";

type SearchView = Extract<View, { view: "search" }>;
type Hit = ExplorerSearchQuery["searchEntities"][number];

export function scopeInput(scope: Scope) {
  if (!scope.workspaces.length && !scope.documentIds.length) return null;
  return {
    workspaces: scope.workspaces.length ? scope.workspaces : null,
    documentIds: scope.documentIds.length ? scope.documentIds : null,
  };
}

const NOTHING_TO_SEARCH = "Type a name or a few words: the search needs at least one letter or digit.";

/** The search box, and its options (the mode, the labels) in a panel of their own that
 * belongs to the same form (`form=`), so the header can place them beside the scope. */
export function searchForm(
  view: SearchView | null,
  labels: ExplorerChoicesQuery["entityLabels"],
): [HTMLFormElement, HTMLElement] {
  const query = h("input", {
    id: "search-query",
    name: "q",
    type: "search",
    value: view?.query ?? "",
    placeholder: "a name or a description",
    autocomplete: "off",
    "aria-describedby": "search-problem",
  });
  const problem = h("p", { id: "search-problem", class: "problem", hidden: true });
  const mode = h(
    "select",
    { id: "search-mode", name: "mode", form: "search" },
    (["HYBRID", "LEXICAL", "SEMANTIC"] as SearchMode[]).map((value) =>
      h("option", { value, selected: (view?.mode ?? "HYBRID") === value }, MODE_NAMES[value]),
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
        form: "search",
        checked: view?.labels.includes(label) ?? false,
      }),
      ready ? label : `${label} (indexes ${fulltextIndex} / ${vectorIndex})`,
    );
  });
  const chosen = view?.labels.length ? `, only ${view.labels.join(", ")}` : "";
  const form = h(
    "form",
    { id: "search", class: "search-form", role: "search", novalidate: true },
    h("label", { for: "search-query", class: "visually-hidden" }, "Search entities"),
    h("div", { class: "search-row" }, query, h("button", { type: "submit" }, "Search")),
    problem,
  );
  const options = h(
    "details",
    { class: "options" },
    h("summary", {}, "Options", h("span", { class: "said" }, `: by ${MODE_NAMES[view?.mode ?? "HYBRID"]}${chosen}`)),
    h(
      "div",
      { class: "panel" },
      h("div", { class: "option-row" }, h("label", { for: "search-mode" }, "Find by"), mode),
      labelBoxes.length ? h("fieldset", { class: "labels" }, h("legend", {}, "Only these labels"), labelBoxes) : null,
    ),
  );
  const clear = () => {
    problem.hidden = true;
    query.removeAttribute("aria-invalid");
  };
  query.addEventListener("input", clear);
  form.addEventListener("submit", (event) => {
    event.preventDefault();
    const data = new FormData(form);
    const text = String(data.get("q") ?? "").trim();
    if (plainWords(text).length === 0) {
      problem.textContent = NOTHING_TO_SEARCH;
      problem.hidden = false;
      query.setAttribute("aria-invalid", "true");
      query.focus();
      return;
    }
    clear();
    navigate({
      view: "search",
      query: text,
      mode: String(data.get("mode") ?? "HYBRID") as SearchMode,
      labels: data.getAll("labels").map(String),
      limit: SEARCH_PAGE,
    });
  });
  return [form, options];
}

const MODE_NAMES: Record<SearchMode, string> = {
  HYBRID: "name and meaning",
  LEXICAL: "name only",
  SEMANTIC: "meaning only",
};

/** How a hit was found, in words: by its name (the lexical list), by meaning (the semantic
 * list), or both. */
function foundBy(hit: Hit): string {
  if (hit.lexicalRank !== null && hit.semanticRank !== null) return "found by name and by meaning";
  return hit.lexicalRank !== null ? "found by name" : "found by meaning only";
}

function hitItem(hit: Hit, query: string, index: number): HTMLElement {
  const name = link({ view: "entity", id: hit.entity.id }, hit.entity.name);
  name.dataset["key"] = `hit:${index}`;
  const cards = hit.evidence.map((passage) =>
    passageCard(passage, entityExcerpt(passage.text, hit.entity.name, query), [hit.entity.name]),
  );
  return h(
    "li",
    { class: "hit", "data-status": hit.status },
    h(
      "h3",
      {},
      h("span", { class: "rank" }, `${index + 1}.`),
      " ",
      name,
      " ",
      h("span", { class: `status status-${hit.status.toLowerCase()}` }, hit.status),
    ),
    h(
      "p",
      { class: "meta" },
      `${hit.entity.labels.join(", ") || "no label"} · `,
      h("span", { class: `found found-${hit.lexicalRank === null ? "meaning" : "name"}` }, foundBy(hit)),
    ),
    passageList(
      cards,
      hit.status === "UNSUPPORTED"
        ? "UNSUPPORTED: passages mention it, but none is current — it has no evidence."
        : "No visible passage supports it.",
    ),
  );
}

/** Names to offer instead, those the query does not already spell. */
function offered(query: string, names: string[]): string[] {
  const typed = plainWords(query).join(" ");
  return names.filter((name) => plainWords(name).join(" ") !== typed);
}

export async function showSearch(target: HTMLElement, view: SearchView, scope: Scope) {
  setTitle(`“${view.query}”`, "Search");
  if (plainWords(view.query).length === 0) {
    setTitle("Nothing to search");
    replace(
      target,
      h("h2", { tabindex: -1, class: "view-title" }, "Nothing to search for"),
      h("p", { class: "problem" }, `“${view.query}” has no letter or digit. ${NOTHING_TO_SEARCH}`),
    );
    return;
  }
  const retry = () => void showSearch(target, view, scope);
  replace(target, h("p", { class: "loading", role: "status" }, `Searching for “${view.query}”…`));
  let data: ExplorerSearchQuery;
  try {
    data = await run(ExplorerSearchDocument, {
      query: view.query,
      mode: view.mode,
      labels: view.labels.length ? view.labels : null,
      scope: scopeInput(scope),
      limit: view.limit,
    });
  } catch (error) {
    replace(target, errorPanel(error, retry));
    return;
  }
  const hits = data.searchEntities;
  const byName = hits.filter((hit) => hit.lexicalRank !== null).length;
  const lexical = view.mode !== "SEMANTIC";
  const suggestions = lexical && byName === 0 ? offered(view.query, data.nameSuggestions) : [];
  const list = h("ol", { class: "hits" }, hits.map((hit, index) => hitItem(hit, view.query, index)));
  const more =
    hits.length === view.limit && view.limit < SEARCH_LIMIT
      ? h("button", { type: "button", class: "more-results" }, "More results")
      : null;
  more?.addEventListener("click", () =>
    navigate({ ...view, limit: Math.min(SEARCH_LIMIT, view.limit + SEARCH_PAGE) }, false, `hit:${view.limit}`),
  );
  const found = lexical
    ? `: ${byName} found by name, ${hits.length - byName} by meaning only`
    : ", found by meaning only";
  replace(
    target,
    h("h2", { tabindex: -1, class: "view-title" }, `Results for “${view.query}”`),
    h(
      "p",
      { role: "status", class: "search-summary" },
      `${counted(hits.length, "entity", "entities")} (by ${MODE_NAMES[view.mode]})${hits.length ? found : ""}.`,
    ),
    hits.length && lexical && byName === 0
      ? h(
          "p",
          { class: "notice" },
          "No entity's name holds the words you typed: every result below was found by meaning only, " +
            "the closest first however far, and may be only loosely related.",
        )
      : null,
    suggestions.length
      ? h(
          "p",
          { class: "suggestions" },
          "Did you mean ",
          suggestions.flatMap((name, index) => [
            index === 0 ? "" : index === suggestions.length - 1 ? " or " : ", ",
            link({ ...view, query: name, limit: SEARCH_PAGE }, name),
          ]),
          "?",
        )
      : null,
    hits.length ? list : h("p", { class: "empty" }, "Nothing in your scope matches."),
    more,
  );
  roving(list);
}
