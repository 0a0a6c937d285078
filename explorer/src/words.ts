// The words of a query as the service's lexical side reads them (retrieval/lexical_rule.py
// `content_words`): plain lowercase words, a possessive's s dropped, letters and digits apart,
// less function words and one-letter fragments. The page marks these, and only as whole words
// or a word's start, so "a drone encounter" marks "drone" and "encounters", never the "a" of
// "team" or the "the" of "another".

// retrieval/stop_words.py, word for word (tests/test_explorer.py fails when the two differ).
const FUNCTION_WORDS = `
    i me my myself we our ours ourselves you your yours yourself yourselves he him his himself
    she her hers herself it its itself they them their theirs themselves
    what which who whom whose this that these those
    am is are was were be been being have has had having do does did doing
    a an the and but if or because as until while of at by for with about against between into
    through during before after above below to from up down in out on off over under
    again further then once here there when where why how
    all any both each few more most other some such no nor not only own same so than too very
    can will just should now could would might must shall
    don doesn didn isn aren wasn weren haven hasn hadn couldn shouldn wouldn ll ve re
`;
export const STOP_WORDS: ReadonlySet<string> = new Set(FUNCTION_WORDS.split(/\s+/).filter(Boolean));

const POSSESSIVE = /(?<=[\p{L}\p{N}])['’`]s(?![\p{L}\p{N}])/giu;
const PLAIN = /[\p{L}\p{N}]+/gu;
const ATOM = /\p{L}+|\p{N}+/gu;

/** The query's plain words, lowercased: what the service searches at all (none: the query is
 * refused as MALFORMED, so the page says so before sending it). */
export function plainWords(text: string): string[] {
  return text.toLowerCase().match(PLAIN) ?? [];
}

/** The words of `text` that carry content, each once, in order. */
export function contentWords(text: string): string[] {
  const words = plainWords(text.replace(POSSESSIVE, ""))
    .flatMap((word) => word.match(ATOM) ?? [word])
    .filter((word) => (word.length > 1 || /^\p{N}+$/u.test(word)) && !STOP_WORDS.has(word));
  return [...new Set(words)];
}

function escaped(word: string): string {
  return word.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");
}

/** Where `words` stand in `text` as whole words or a word's start (the whole word is
 * returned): [start, end) pairs in order. */
export function wordRanges(text: string, words: string[]): [number, number][] {
  if (words.length === 0) return [];
  const longest = [...words].sort((a, b) => b.length - a.length).map(escaped);
  const pattern = new RegExp(`(?<![\\p{L}\\p{N}])(?:${longest.join("|")})[\\p{L}\\p{N}]*`, "giu");
  return [...text.matchAll(pattern)].map((match) => [match.index, match.index + match[0].length]);
}
