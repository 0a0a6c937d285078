// Evidence anchored to what it supports (issue 40 §1): a passage runs to thousands of
// characters, so each view shows the sentences that matter, with the words that make them
// matter marked:
// - an entity's evidence: the sentences where it is named;
// - an edge's evidence: the sentences where both its ends are named (else the nearest two
//   sentences that name them between them), both names marked, each in its own colour;
// - a search hit's evidence: the sentences naming the hit, the query's words marked too; a
//   passage that never names it is centred on the query's content words;
// - an opened passage: whole, every mention marked (passage.ts scrolls to the first).
//
// A name is found as written (any case, any punctuation between its words, a possessive 's),
// else by its distinctive words ("MR. SCROOGE" in a passage that says "Scrooge"). Sentences
// are the browser's own (Intl.Segmenter). Text only: every string becomes a text node.

import { h } from "./dom";
import { contentWords, plainWords, wordRanges } from "./words";

export type MarkKind = "query" | "name" | "a" | "b";
type Range = [number, number];
interface Mark {
  start: number;
  end: number;
  kind: MarkKind;
}

const EXCERPT = 420; // characters of a sentence shown around its first mark, at most
const SENTENCES = 2; // sentences shown per passage, at most
// Words that name no one in particular: "MR. SCROOGE" is found by "Scrooge", not by "Mr".
const TITLES = new Set(["mr", "mrs", "ms", "miss", "dr", "sir", "st", "jr", "sr", "old", "young"]);

const segmenter = new Intl.Segmenter("en", { granularity: "sentence" });

/** Each sentence of `text` as [start, end), trimmed of the spaces around it. A line break
 * alone (a book's text wrapped at 70 characters) does not end a sentence; a blank line does. */
export function sentences(text: string): Range[] {
  const found: Range[] = [];
  for (const { index, segment } of segmenter.segment(unwrap(text))) {
    const lead = segment.length - segment.trimStart().length;
    const end = index + segment.trimEnd().length;
    if (end > index + lead) found.push([index + lead, end]);
  }
  return found;
}

/** `text` with each lone line break a space: as long as `text`, so offsets hold for both. An
 * excerpt is shown so, as running text; a passage opened whole keeps its lines. */
function unwrap(text: string): string {
  return text.replace(/(?<!\n)\r?\n(?!\r?\n)/g, (line) => " ".repeat(line.length));
}

function escaped(word: string): string {
  return word.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");
}

/** Where `name` is mentioned in `text`: as written when it is, else by its distinctive words. */
export function nameRanges(text: string, name: string): Range[] {
  const words = plainWords(name);
  if (words.length === 0) return [];
  const phrase = new RegExp(
    `(?<![\\p{L}\\p{N}])${words.map(escaped).join("[^\\p{L}\\p{N}]+")}(?:['’\`]s)?(?![\\p{L}\\p{N}])`,
    "giu",
  );
  const written = [...text.matchAll(phrase)].map((m): Range => [m.index, m.index + m[0].length]);
  if (written.length) return written;
  const distinctive = contentWords(name).filter((word) => word.length > 2 && !TITLES.has(word));
  return wholeWords(text, distinctive);
}

/** `words` as whole words (a possessive allowed), not as a word's start: a name's words. */
function wholeWords(text: string, words: string[]): Range[] {
  if (words.length === 0) return [];
  const pattern = new RegExp(
    `(?<![\\p{L}\\p{N}])(?:${words.map(escaped).join("|")})(?:['’\`]s)?(?![\\p{L}\\p{N}])`,
    "giu",
  );
  return [...text.matchAll(pattern)].map((m): Range => [m.index, m.index + m[0].length]);
}

const within = (range: Range, [start, end]: Range) => range[0] >= start && range[1] <= end;

/** Two names' mentions, less those of each that stand inside a mention of the other. */
function apart(a: Range[], b: Range[]): [Range[], Range[]] {
  const inside = (range: Range, others: Range[]) =>
    others.some((other) => within(range, other) && (other[0] !== range[0] || other[1] !== range[1]));
  return [a.filter((range) => !inside(range, b)), b.filter((range) => !inside(range, a))];
}

/** A sentence's span cut to `EXCERPT` characters around its first mark, at spaces. */
function window(text: string, [start, end]: Range, marks: Mark[]): Range {
  if (end - start <= EXCERPT) return [start, end];
  const first = marks.find((mark) => mark.start >= start && mark.end <= end)?.start ?? start;
  let from = Math.max(start, first - Math.floor(EXCERPT / 3));
  let to = Math.min(end, from + EXCERPT);
  from = Math.max(start, to - EXCERPT);
  if (from > start) from = text.indexOf(" ", from) + 1 || from;
  if (to < end) {
    const space = text.lastIndexOf(" ", to);
    if (space > from) to = space;
  }
  return [from, to];
}

/** The spans of `text` shown, with their marks, as text and <mark> nodes; "…" where cut. */
function render(text: string, spans: Range[], marks: Mark[]): Node[] {
  const nodes: Node[] = [];
  const ordered = [...spans].sort((a, b) => a[0] - b[0]);
  ordered.forEach(([start, end], index) => {
    const gap = text.slice(index === 0 ? 0 : ordered[index - 1]![1], start);
    if (/\S/.test(gap)) nodes.push(document.createTextNode(index === 0 ? "…" : " … "));
    else if (index > 0) nodes.push(document.createTextNode(gap));
    let at = start;
    for (const mark of marks) {
      if (mark.start < at || mark.end > end) continue;
      if (mark.start > at) nodes.push(document.createTextNode(text.slice(at, mark.start)));
      nodes.push(h("mark", { class: `mark-${mark.kind}` }, text.slice(mark.start, mark.end)));
      at = mark.end;
    }
    if (end > at) nodes.push(document.createTextNode(text.slice(at, end)));
  });
  if (/\S/.test(text.slice(ordered.at(-1)?.[1] ?? text.length))) nodes.push(document.createTextNode("…"));
  return nodes;
}

/** Marks of several kinds, overlaps resolved for the earlier and longer. */
function marksOf(...groups: [Range[], MarkKind][]): Mark[] {
  const all = groups
    .flatMap(([ranges, kind]) => ranges.map(([start, end]) => ({ start, end, kind })))
    .sort((a, b) => a.start - b.start || b.end - a.end);
  const kept: Mark[] = [];
  for (const mark of all) if (!kept.length || mark.start >= kept.at(-1)!.end) kept.push(mark);
  return kept;
}

/** The sentences holding most of `wanted` (each a list of ranges: a name, a word), best
 * first, at most `count`; those holding none are never chosen. */
function best(all: Range[], wanted: Range[][], count: number): Range[] {
  const scored = all
    .map((sentence) => ({
      sentence,
      held: wanted.filter((ranges) => ranges.some((range) => within(range, sentence))).length,
    }))
    .filter(({ held }) => held > 0);
  const top = Math.max(0, ...scored.map(({ held }) => held));
  return scored
    .filter(({ held }) => held === top)
    .slice(0, count)
    .map(({ sentence }) => sentence);
}

/** The part of `text` around the query's content words (the start when it holds none). */
export function queryExcerpt(passage: string, query: string): Node[] {
  const text = unwrap(passage);
  const words = contentWords(query);
  const marks = marksOf([wordRanges(text, words), "query"]);
  const perWord = words.map((word) => wordRanges(text, [word]));
  const chosen = best(sentences(text), perWord, 1);
  const spans = chosen.length ? chosen : [[0, text.length] as Range];
  return render(text, spans.map((span) => window(text, span, marks)), marks);
}

/** An entity's evidence: the sentences where `name` is named, marked; with a query, the one
 * holding most of its words first, and, when none of them holds any, the sentence that holds
 * most of the query's words beside it (marked too). The query's excerpt when the passage never
 * names it. */
export function entityExcerpt(passage: string, name: string, query = ""): Node[] {
  const text = unwrap(passage);
  const named = nameRanges(text, name);
  if (named.length === 0) return queryExcerpt(text, query);
  const words = contentWords(query);
  const perWord = words.map((word) => wordRanges(text, [word]));
  const marks = marksOf([named, "name"], [perWord.flat(), "query"]);
  const all = sentences(text);
  const held = (span: Range) => perWord.filter((ranges) => ranges.some((range) => within(range, span))).length;
  const naming = all
    .filter((span) => named.some((range) => within(range, span)))
    .map((span, order) => ({ span, order, held: held(span) }))
    .sort((a, b) => b.held - a.held || a.order - b.order);
  const chosen = naming.slice(0, SENTENCES).map(({ span }) => span);
  if (words.length && naming[0]!.held === 0) {
    const asked = best(all, perWord, 1);
    if (asked.length) chosen.splice(1, 1, asked[0]!);
  }
  return render(text, chosen.map((span) => window(text, span, marks)), marks);
}

/** An edge's evidence: the sentences where both ends are named, both marked; else the two
 * neighbouring sentences that name them between them; else those naming either. */
export function edgeExcerpt(passage: string, source: string, target: string): Node[] {
  const text = unwrap(passage);
  // A name inside the other's ("Scrooge" in "Scrooge's niece") is the other's mention.
  const [a, b] = apart(nameRanges(text, source), nameRanges(text, target));
  const marks = marksOf([a, "a"], [b, "b"]);
  const all = sentences(text);
  const holds = (span: Range, ranges: Range[]) => ranges.some((range) => within(range, span));
  let chosen = all.filter((span) => holds(span, a) && holds(span, b)).slice(0, SENTENCES);
  if (chosen.length === 0) {
    for (let i = 0; i + 1 < all.length && chosen.length === 0; i++) {
      const pair: Range = [all[i]![0], all[i + 1]![1]];
      if (holds(pair, a) && holds(pair, b)) chosen = [all[i]!, all[i + 1]!];
    }
  }
  if (chosen.length === 0) chosen = best(all, [a, b], SENTENCES);
  if (chosen.length === 0) chosen = [[0, text.length]];
  return render(text, chosen.map((span) => window(text, span, marks)), marks);
}

/** The whole of `text`, every mention of `names` (one or two) marked, each in its colour. */
export function markedText(text: string, names: string[]): Node[] {
  const [first = [], second = []] = names.map((name) => nameRanges(text, name));
  const [a, b] = apart(first, second);
  return render(text, [[0, text.length]], marksOf([a, "a"], [b, "b"]));
}
