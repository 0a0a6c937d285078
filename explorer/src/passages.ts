// A passage as every view lists it: the part of it that matters, marked (anchor.ts), and where
// it comes from, with a link to the whole of it that marks the same names.

import { h } from "./dom";
import type { PassageSummaryFragment } from "./gql/graphql";
import { link } from "./nav";

export function documentName(document: { title: string | null; workspace: string }): string {
  return `${document.title ?? "Untitled document"} (${document.workspace})`;
}

/** A passage in a list: `excerpt` (anchor.ts), its document and position, and "open passage",
 * which shows it whole with `marks` (names) marked and scrolled to. */
export function passageCard(passage: PassageSummaryFragment, excerpt: Node[], marks: string[] = []): HTMLElement {
  const open = link({ view: "passage", id: passage.id, marks }, "Open passage");
  open.dataset["key"] = `passage:${passage.id}`;
  return h(
    "article",
    { class: "passage" },
    h("blockquote", {}, excerpt),
    h(
      "p",
      { class: "source" },
      h("cite", {}, documentName(passage.document)),
      ` · passage ${passage.position} `,
      open,
    ),
  );
}

/** Passages as a list the keyboard crosses in one Tab (roving.ts), or `empty` when none. */
export function passageList(items: HTMLElement[], empty: string): HTMLElement {
  if (items.length === 0) return h("p", { class: "empty" }, empty);
  return h("ul", { class: "passages" }, items.map((item) => h("li", {}, item)));
}
