// Passage: its text, where it sits in its document, the document, and the entities it mentions.
// Opened from evidence, it marks the names the evidence was about (`mark=` in its link: an
// entity's name, or an edge's two ends) and scrolls to the first mention.

import { markedText } from "./anchor";
import { run } from "./api";
import { h, replace } from "./dom";
import { errorPanel, notFound } from "./errors";
import { ExplorerPassageDocument } from "./gql/graphql";
import { link, setTitle } from "./nav";
import { documentName } from "./passages";
import type { Scope } from "./route";
import { scopeInput } from "./search";

export async function showPassage(target: HTMLElement, id: string, marks: string[], scope: Scope) {
  setTitle("Passage");
  const retry = () => void showPassage(target, id, marks, scope);
  replace(target, h("p", { class: "loading", role: "status" }, "Loading the passage…"));
  try {
    const { passage } = await run(ExplorerPassageDocument, { id, scope: scopeInput(scope) });
    if (passage === null) {
      setTitle("Passage not found");
      replace(target, notFound("Passage"));
      return;
    }
    const document = passage.document;
    const title = `Passage ${passage.position} of ${documentName(document)}`;
    setTitle(title);
    const text = h("blockquote", { class: "passage-text" }, markedText(passage.text, marks));
    const first = text.querySelector("mark");
    // main.ts scrolls here once the view's title has the focus.
    first?.setAttribute("data-scroll-to", "");
    const found = marks.map((name, index) => {
      const count = text.querySelectorAll(`mark.mark-${index === 1 ? "b" : "a"}`).length;
      return h(
        "li",
        {},
        h("mark", { class: `mark-${index === 1 ? "b" : "a"}` }, name),
        count ? `: ${count === 1 ? "1 mention" : `${count} mentions`}` : ": not named here as written",
      );
    });
    replace(
      target,
      h("h2", { tabindex: -1, class: "view-title" }, title),
      found.length ? h("div", { class: "marked" }, h("p", {}, "Marked:"), h("ul", {}, found)) : null,
      text,
      h(
        "dl",
        { class: "facts" },
        h("dt", {}, "Document"),
        h("dd", {}, document.title ?? "Untitled document"),
        h("dt", {}, "Workspace"),
        h("dd", {}, document.workspace),
        h("dt", {}, "Position"),
        h("dd", {}, String(passage.position)),
        h("dt", {}, "Version"),
        h("dd", {}, String(passage.version)),
        h("dt", {}, "Document id"),
        h("dd", {}, h("code", {}, document.id)),
        document.uri ? h("dt", {}, "URI") : null,
        document.uri ? h("dd", {}, document.uri) : null,
      ),
      h("h3", {}, `Entities it mentions (${passage.mentions.length})`),
      passage.mentions.length
        ? h(
            "ul",
            { class: "mentions" },
            passage.mentions.map((entity) =>
              h("li", {}, link({ view: "entity", id: entity.id }, entity.name), ` (${entity.labels.join(", ") || "no label"})`),
            ),
          )
        : h("p", { class: "empty" }, "None in your scope."),
    );
  } catch (error) {
    replace(target, errorPanel(error, retry));
  }
}
