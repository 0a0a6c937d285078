// A colour per entity label (issue 40 §2, "Colour and legend"): Okabe and Ito's eight colours,
// told apart by people with each common colour-vision deficiency, given out in the order of the
// service's label list (`entityLabels`), so a label keeps its colour from walk to walk. Each
// node also carries a dark outline, so no colour needs to stand out from the page on its own.

const COLOURS = ["#0072B2", "#E69F00", "#009E73", "#CC79A7", "#56B4E9", "#D55E00", "#F0E442", "#999999"];
const NO_LABEL = "#FFFFFF";

/** The colour of `labels`' first label in `order` (the service's list, then any other). */
export function labelColour(labels: readonly string[], order: readonly string[]): string {
  const first = primaryLabel(labels, order);
  if (first === null) return NO_LABEL;
  const index = order.indexOf(first);
  return COLOURS[(index >= 0 ? index : order.length + [...first].length) % COLOURS.length]!;
}

/** The label a node is coloured by: its first in `order`, else its first. */
export function primaryLabel(labels: readonly string[], order: readonly string[]): string | null {
  return [...labels].sort((a, b) => rank(a, order) - rank(b, order) || a.localeCompare(b))[0] ?? null;
}

function rank(label: string, order: readonly string[]): number {
  const index = order.indexOf(label);
  return index >= 0 ? index : order.length;
}
