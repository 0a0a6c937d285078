// Entity: its name, labels, description and evidence, more of it a page at a time (the cursor of
// `evidencePage`), and a walk from it. Each passage shows the sentences where the entity is
// named, its name marked (anchor.ts). A missing entity and one outside the token's scope both
// read "not found".

import { entityExcerpt } from "./anchor";
import { run } from "./api";
import { append, h, replace } from "./dom";
import { errorPanel, notFound } from "./errors";
import {
  ExplorerEntityDocument,
  ExplorerEntityEvidenceDocument,
  type EvidencePageFragment,
} from "./gql/graphql";
import { navigate, setTitle } from "./nav";
import { passageCard } from "./passages";
import { roving } from "./roving";
import { DEFAULT_BOUNDS, type Scope } from "./route";
import { scopeInput } from "./search";

export const EVIDENCE_PAGE = 5;

export async function showEntity(target: HTMLElement, id: string, scope: Scope) {
  setTitle("Entity");
  const retry = () => void showEntity(target, id, scope);
  replace(target, h("p", { class: "loading", role: "status" }, "Loading the entity…"));
  try {
    const { entity } = await run(ExplorerEntityDocument, {
      id,
      scope: scopeInput(scope),
      first: EVIDENCE_PAGE,
    });
    if (entity === null) {
      setTitle("Entity not found");
      replace(target, notFound("Entity"));
      return;
    }
    setTitle(entity.name, "Entity");
    const walk = h("button", { type: "button", class: "walk-from" }, "Walk from here");
    walk.addEventListener("click", () =>
      navigate({ view: "walk", id: entity.id, bounds: DEFAULT_BOUNDS, expand: [], selected: null }),
    );
    const list = h("ul", { class: "passages" });
    const count = h("span", {});
    const more = h("button", { type: "button", class: "more" }, "More evidence");
    const problem = h("div", {});
    let shown = 0;
    let page: EvidencePageFragment = entity.evidencePage;
    const add = (next: EvidencePageFragment) => {
      page = next;
      const items = next.nodes.map((passage) =>
        h("li", {}, passageCard(passage, entityExcerpt(passage.text, entity.name), [entity.name])),
      );
      append(list, items);
      roving(list);
      shown += next.nodes.length;
      count.textContent = `${shown}${next.pageInfo.hasNextPage ? "+" : ""}`;
      more.hidden = !next.pageInfo.hasNextPage;
      return items[0];
    };
    more.addEventListener("click", async () => {
      replace(problem);
      try {
        const { entity: again } = await run(ExplorerEntityEvidenceDocument, {
          id,
          scope: scopeInput(scope),
          first: EVIDENCE_PAGE,
          after: page.pageInfo.endCursor ?? "",
        });
        if (again === null) {
          replace(target, notFound("Entity"));
          return;
        }
        add(again.evidencePage)?.querySelector<HTMLElement>("a")?.focus();
      } catch (error) {
        replace(problem, errorPanel(error, () => more.click()));
      }
    });
    add(entity.evidencePage);
    replace(
      target,
      h("h2", { tabindex: -1, class: "view-title" }, entity.name),
      h(
        "p",
        { class: "labels" },
        entity.labels.length ? entity.labels.map((label) => h("span", { class: "chip" }, label)) : "no label",
      ),
      h("p", { class: "description" }, entity.description ?? "No description."),
      walk,
      h("h3", {}, "Evidence (", count, "): where it is named"),
      shown === 0 ? h("p", { class: "empty" }, "No visible passage supports it.") : list,
      more,
      problem,
    );
  } catch (error) {
    replace(target, errorPanel(error, retry));
  }
}
