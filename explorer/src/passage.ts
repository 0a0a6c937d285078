// Passage: its text, where it sits in its document, the document, and the entities it mentions.

import { run } from "./api";
import { h, replace } from "./dom";
import { errorPanel, notFound } from "./errors";
import { ExplorerPassageDocument } from "./gql/graphql";
import { link } from "./nav";
import { documentName } from "./passages";
import type { Scope } from "./route";
import { scopeInput } from "./search";

export async function showPassage(target: HTMLElement, id: string, scope: Scope) {
  const retry = () => void showPassage(target, id, scope);
  replace(target, h("p", { class: "loading", role: "status" }, "Loading the passage…"));
  try {
    const { passage } = await run(ExplorerPassageDocument, { id, scope: scopeInput(scope) });
    if (passage === null) {
      replace(target, notFound("Passage"));
      return;
    }
    const document = passage.document;
    replace(
      target,
      h("h2", { tabindex: -1, class: "view-title" }, `Passage ${passage.position} of ${documentName(document)}`),
      h("blockquote", { class: "passage-text" }, passage.text),
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
