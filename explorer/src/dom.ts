// Building the page from data without ever parsing it as HTML: every string from the service
// (names, passages, titles, error messages) reaches the page as a text node, so no markup in the
// graph can run or restyle anything.

type Child = Node | string | null | undefined | false;
type Attributes = Record<string, string | number | boolean | null | undefined>;

export function h<K extends keyof HTMLElementTagNameMap>(
  tag: K,
  attributes: Attributes = {},
  ...children: (Child | Child[])[]
): HTMLElementTagNameMap[K] {
  const element = document.createElement(tag);
  for (const [name, value] of Object.entries(attributes)) {
    if (value === null || value === undefined || value === false) continue;
    element.setAttribute(name, value === true ? "" : String(value));
  }
  append(element, children);
  return element;
}

export function append(parent: Node, children: (Child | Child[])[]): void {
  for (const child of children.flat()) {
    if (child === null || child === undefined || child === false) continue;
    parent.appendChild(typeof child === "string" ? document.createTextNode(child) : child);
  }
}

export function replace(parent: Element, ...children: (Child | Child[])[]): void {
  parent.replaceChildren();
  append(parent, children);
}

/** The query's words as the lexical search sees them: letters and digits, lowercased. */
export function queryWords(query: string): string[] {
  const words = query.toLowerCase().match(/[\p{L}\p{N}]+/gu) ?? [];
  return [...new Set(words)].sort((a, b) => b.length - a.length);
}

/** `text` with each of `words` (whole or as a word's start) marked; text nodes only. */
export function highlighted(text: string, words: string[]): Node[] {
  if (words.length === 0) return [document.createTextNode(text)];
  const escaped = words.map((word) => word.replace(/[.*+?^${}()|[\]\\]/g, "\\$&"));
  const pattern = new RegExp(`(${escaped.join("|")})`, "giu");
  const nodes: Node[] = [];
  let last = 0;
  for (const match of text.matchAll(pattern)) {
    const start = match.index ?? 0;
    if (start > last) nodes.push(document.createTextNode(text.slice(last, start)));
    nodes.push(h("mark", {}, match[0]));
    last = start + match[0].length;
  }
  if (last < text.length) nodes.push(document.createTextNode(text.slice(last)));
  return nodes;
}

/** Up to `size` characters of `text` around the first of `words` it holds (the start when none
 * does), cut at spaces, with "…" where it was cut. */
export function excerpt(text: string, words: string[], size = 360): string {
  if (text.length <= size) return text;
  const lower = text.toLowerCase();
  const found = words.map((word) => lower.indexOf(word)).filter((index) => index >= 0);
  const at = found.length ? Math.min(...found) : 0;
  let start = Math.max(0, at - Math.floor(size / 3));
  let end = Math.min(text.length, start + size);
  start = Math.max(0, end - size);
  if (start > 0) start = text.indexOf(" ", start) + 1 || start;
  if (end < text.length) end = text.lastIndexOf(" ", end) > start ? text.lastIndexOf(" ", end) : end;
  return `${start > 0 ? "…" : ""}${text.slice(start, end)}${end < text.length ? "…" : ""}`;
}
