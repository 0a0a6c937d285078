// A passage as every view lists it: its words (the query's marked), and where it comes from.

import { excerpt, h, highlighted } from "./dom";
import type { PassageSummaryFragment } from "./gql/graphql";
import { link } from "./nav";

export function documentName(document: { title: string | null; workspace: string }): string {
  return `${document.title ?? "Untitled document"} (${document.workspace})`;
}

/** A passage in a list: the part around the query's first word (a GraphRAG passage runs to a
 * thousand words); the passage's own view shows it whole. */
export function passageCard(passage: PassageSummaryFragment, words: string[] = []): HTMLElement {
  return h(
    "article",
    { class: "passage" },
    h("blockquote", {}, ...highlighted(excerpt(passage.text, words), words)),
    h(
      "p",
      { class: "source" },
      h("cite", {}, documentName(passage.document)),
      ` · passage ${passage.position} · `,
      link({ view: "passage", id: passage.id }, "open passage"),
    ),
  );
}

export function passageList(
  passages: PassageSummaryFragment[],
  words: string[] = [],
  empty = "No visible passage supports it.",
): HTMLElement {
  if (passages.length === 0) return h("p", { class: "empty" }, empty);
  return h(
    "ul",
    { class: "passages" },
    passages.map((passage) => h("li", {}, passageCard(passage, words))),
  );
}
