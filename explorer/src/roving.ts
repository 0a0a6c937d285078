// A list the keyboard crosses in one Tab (issue 40 §4, "Tab distances"): a roving tabindex.
// Only the current row's controls are in the Tab order; the arrow keys (and Home, End) move
// between rows, to each row's first control. Tab from a row goes on through that row's other
// controls (a hit's passages, a node's Expand), then out of the list. The row last visited
// stays the list's Tab stop.

const FOCUSABLE = "a[href], button:not([disabled]), input:not([disabled]), select, summary, [data-roving-item]";
const KEYS = new Set(["ArrowDown", "ArrowUp", "Home", "End"]);

function controls(row: Element): HTMLElement[] {
  return [...row.querySelectorAll<HTMLElement>(FOCUSABLE)];
}

function activate(list: HTMLElement, current: Element | null): void {
  for (const row of list.children) {
    for (const control of controls(row)) control.tabIndex = row === current ? 0 : -1;
  }
}

/** Make `list`'s rows (its children) a roving group; call again after rows are added. */
export function roving(list: HTMLElement): void {
  const current = [...list.children].find((row) => controls(row).some((c) => c.tabIndex === 0));
  activate(list, current ?? list.firstElementChild);
  if (list.dataset["roving"]) return;
  list.dataset["roving"] = "on";
  list.addEventListener("focusin", (event) => {
    const row = [...list.children].find((child) => child.contains(event.target as Node));
    if (row) activate(list, row);
  });
  list.addEventListener("keydown", (event) => {
    if (!KEYS.has(event.key) || event.altKey || event.ctrlKey || event.metaKey) return;
    const rows = [...list.children].filter((row) => controls(row).length > 0);
    const at = rows.findIndex((row) => row.contains(event.target as Node));
    if (at < 0) return;
    const next =
      event.key === "Home" ? 0
      : event.key === "End" ? rows.length - 1
      : Math.min(rows.length - 1, Math.max(0, at + (event.key === "ArrowDown" ? 1 : -1)));
    event.preventDefault();
    controls(rows[next]!)[0]?.focus();
  });
}

/** Focus `row`'s first control, making it the list's Tab stop. */
export function focusRow(row: Element | null | undefined): boolean {
  const control = row ? controls(row)[0] : undefined;
  control?.focus();
  return control !== undefined;
}
