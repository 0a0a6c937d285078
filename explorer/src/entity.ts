// Entity: its name, labels, description and evidence, more of it a page at a time, and a walk
// from it. A missing entity and one outside the token's scope both read "not found".

import { run } from "./api";
import { h, replace } from "./dom";
import { errorPanel, notFound } from "./errors";
import { ExplorerEntityDocument } from "./gql/graphql";
import { navigate } from "./nav";
import { passageList } from "./passages";
import { DEFAULT_BOUNDS, type Scope } from "./route";
import { scopeInput } from "./search";

export const EVIDENCE_PAGE = 5;

export async function showEntity(
  target: HTMLElement,
  id: string,
  scope: Scope,
  evidenceLimit = EVIDENCE_PAGE,
  focusMore = false,
) {
  const retry = () => void showEntity(target, id, scope, evidenceLimit);
  if (!focusMore) replace(target, h("p", { class: "loading", role: "status" }, "Loading the entity…"));
  try {
    const { entity } = await run(ExplorerEntityDocument, {
      id,
      scope: scopeInput(scope),
      evidenceLimit,
    });
    if (entity === null) {
      replace(target, notFound("Entity"));
      return;
    }
    const walk = h("button", { type: "button", class: "walk-from" }, "Walk from here");
    walk.addEventListener("click", () =>
      navigate({ view: "walk", id: entity.id, bounds: DEFAULT_BOUNDS, expand: [] }),
    );
    // Asked for one page more than shown so far; a full page means there may be more.
    const more =
      entity.evidence.length === evidenceLimit
        ? h("button", { type: "button", class: "more" }, "More evidence")
        : null;
    more?.addEventListener("click", () =>
      void showEntity(target, id, scope, evidenceLimit + EVIDENCE_PAGE, true),
    );
    replace(
      target,
      h("h2", { tabindex: -1, class: "view-title" }, entity.name),
      h(
        "p",
        { class: "labels" },
        entity.labels.length
          ? entity.labels.map((label) => h("span", { class: "chip" }, label))
          : "no label",
      ),
      h("p", { class: "description" }, entity.description ?? "No description."),
      walk,
      h("h3", {}, `Evidence (${entity.evidence.length}${more ? "+" : ""})`),
      passageList(entity.evidence),
      more,
    );
    if (focusMore) {
      const items = target.querySelectorAll<HTMLElement>(".passages li");
      const firstNew = items[evidenceLimit - EVIDENCE_PAGE];
      firstNew?.setAttribute("tabindex", "-1");
      (firstNew ?? target.querySelector<HTMLElement>(".view-title"))?.focus();
    }
  } catch (error) {
    replace(target, errorPanel(error, retry));
  }
}
