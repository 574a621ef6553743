import { porterStem } from './porter.ts';

/** Folds a word as FTS5's unicode61 tokenizer does: lower case, diacritics removed. */
export function foldWord(word: string): string {
  return word.normalize('NFD').replace(/\p{M}/gu, '').toLowerCase();
}

const WORD = /[\p{L}\p{N}]+/gu;
const NON_ASCII = /[\u0080-\uffff]/;
/** A run of word characters around a character outside ASCII: holds every token that has one. */
const NON_ASCII_RUN = /[\p{L}\p{N}]*[\u0080-\u{10ffff}][\p{L}\p{N}]*/gu;
const TRAILING_WORD = /[\p{L}\p{N}]+$/u;

/** The words of a search query; punctuation and operators are separators, never syntax. */
export function searchWords(query: string): string[] {
  return [...new Set(query.match(WORD) ?? [])];
}

/**
 * Words too common to search, which PostgreSQL's `english` configuration drops from a query and a text:
 * they are taken out of every query on both databases, so that both answer alike.
 */
export const STOP_WORDS: ReadonlySet<string> = new Set(
  (
    'a about above after again against all am an and any are as at be because been before being below ' +
    'between both but by can did do does doing don down during each few for from further had has have ' +
    'having he her here hers herself him himself his how i if in into is it its itself just me more most ' +
    'my myself no nor not now of off on once only or other our ours ourselves out over own same she ' +
    'should so some such t than that the their theirs them themselves then there these they this those ' +
    'through to too under until up very was we were what when where which while who whom why will with ' +
    'you your yours yourself yourselves s'
  ).split(' '),
);

/** Whether a word is one of the common words never searched (see STOP_WORDS). */
export function isStopWord(word: string): boolean {
  return STOP_WORDS.has(word.toLowerCase());
}

export interface Hit {
  start: number;
  end: number;
}

/** The stem of a word as the full-text index holds it: folded, then Porter-stemmed. */
export function wordStem(word: string): string {
  return porterStem(foldWord(word));
}

/**
 * What every word with this stem begins with. Stemming keeps a word's beginning and writes at most one
 * letter of its own at the end: an e (pric-ing → price), an i for a y (happy → happi) or the l of
 * -bility → -bl (nobility → nobl).
 */
export function stemPrefix(stem: string): string {
  return stem.length > 1 && /(e|i|bl)$/.test(stem) ? stem.slice(0, -1) : stem;
}

/**
 * Finds where any of a query's words occur as whole words in any of their forms: a word matches when
 * its stem (see wordStem) is a query word's ("priced" and "prices" for "pricing"). Built once per query:
 * a regular expression finds the words that begin with what a query word's forms all begin with, spelt
 * in ASCII, and a second one the few tokens that hold other characters; only those are stemmed, so a
 * text is never split into every one of its words.
 */
export class WordFinder {
  readonly #stems: Set<string>;
  readonly #ascii: RegExp | undefined;
  readonly #seen = new Map<string, boolean>();
  /**
   * Lower-case ASCII strings, one per query word spelt in ASCII, that every form of it begins with
   * (its stem less a last letter that stemming may have written: "pric" for "pricing", see stemPrefix).
   */
  readonly asciiPrefixes: readonly string[];

  constructor(words: readonly string[]) {
    this.#stems = new Set(words.map(wordStem));
    const ascii = [...this.#stems].filter((w) => /^[a-z0-9]+$/.test(w));
    this.asciiPrefixes = [...new Set(ascii.map(stemPrefix))];
    // Letters matched as [xX] rather than with the i flag, which under u also folds ſ and K.
    const spelt = this.asciiPrefixes.map((w) =>
      [...w].map((c) => (/[a-z]/.test(c) ? `[${c}${c.toUpperCase()}]` : c)).join(''),
    );
    this.#ascii =
      spelt.length > 0
        ? new RegExp(`(?<![\\p{L}\\p{N}])(?:${spelt.join('|')})[\\p{L}\\p{N}]*`, 'gu')
        : undefined;
  }

  /** Whether a token (a whole word of a text) is a form of a query word. */
  matches(token: string): boolean {
    let yes = this.#seen.get(token);
    if (yes === undefined) {
      yes = this.#stems.has(wordStem(token));
      this.#seen.set(token, yes);
    }
    return yes;
  }

  /** The first whole-word occurrence in `text` at or after `from` (a word boundary). */
  first(text: string, from = 0): Hit | undefined {
    let best: Hit | undefined;
    if (this.#ascii) {
      this.#ascii.lastIndex = from;
      for (let m = this.#ascii.exec(text); m; m = this.#ascii.exec(text)) {
        if (this.matches(m[0])) {
          best = { start: m.index, end: m.index + m[0].length };
          break;
        }
      }
    }
    const before = best?.start ?? text.length;
    const rest = text.slice(from, before);
    if (!NON_ASCII.test(rest)) return best;
    NON_ASCII_RUN.lastIndex = from;
    for (let run = NON_ASCII_RUN.exec(text); run && run.index < before; run = NON_ASCII_RUN.exec(text)) {
      for (const token of run[0].matchAll(WORD)) {
        if (NON_ASCII.test(token[0]) && this.matches(token[0])) {
          const start = run.index + token.index;
          if (start < before) return { start, end: start + token[0].length };
        }
      }
    }
    return best;
  }
}

/** Where the word `text` ends with begins (text.length when it ends with no word): a later read resumes there. */
export function trailingWordStart(text: string): number {
  const tail = text.slice(-200);
  const m = TRAILING_WORD.exec(tail);
  return m ? text.length - tail.length + m.index : text.length;
}

/** Where a window of text lies in the whole it was cut from. */
export interface Cut {
  /** The whole text holds more before the window. */
  before: boolean;
  /** The whole text holds more after the window. */
  after: boolean;
}

/**
 * A window of about `width` characters around the first occurrence of any of `words` in `text`,
 * each occurrence marked «like this», with … where the text was cut. `text` may itself be a window
 * cut from a longer text (`cut`); its first occurrence must then be the longer text's.
 */
export function passage(
  text: string,
  words: readonly string[] | WordFinder,
  width = 160,
  cut: Cut = { before: false, after: false },
): string {
  const finder = words instanceof WordFinder ? words : new WordFinder(words);
  const first = finder.first(text);
  if (!first) {
    const end = Math.min(text.length, width);
    return `${cut.before ? '…' : ''}${text.slice(0, end).trimEnd()}${end < text.length || cut.after ? '…' : ''}`;
  }
  let from = Math.max(0, first.start - Math.floor(width / 3));
  const to = Math.min(text.length, from + width);
  from = Math.max(0, Math.min(from, to - width));
  // Cut on whitespace so the window never starts or ends inside a word.
  if (from > 0) {
    const space = text.slice(from, first.start).search(/\s/);
    from = space === -1 ? first.start : from + space + 1;
  }
  let end = to;
  if (to < text.length) {
    const tail = text.slice(first.end, to);
    const space = tail.search(/\s\S*$/);
    end = space === -1 ? to : first.end + space;
  }
  let out = '';
  let at = from;
  for (let h = finder.first(text, from); h && h.end <= end; h = finder.first(text, h.end)) {
    out += `${text.slice(at, h.start)}«${text.slice(h.start, h.end)}»`;
    at = h.end;
  }
  out += text.slice(at, end);
  const before = from > 0 || cut.before;
  const after = end < text.length || cut.after;
  return `${before ? '…' : ''}${out.trim()}${after ? '…' : ''}`;
}
