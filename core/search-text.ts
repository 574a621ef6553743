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

export interface Hit {
  start: number;
  end: number;
}

/**
 * Finds where any of a query's words occur as whole words, folded as foldWord does. Built once per
 * query: a regular expression finds the words spelt in ASCII and a second one the few tokens that
 * hold other characters, so a text is never split into every one of its words.
 */
export class WordFinder {
  readonly #wanted: Set<string>;
  readonly #ascii: RegExp | undefined;
  /** The folded words spelt in ASCII letters and digits alone (lower case). */
  readonly asciiWords: readonly string[];

  constructor(words: readonly string[]) {
    this.#wanted = new Set(words.map(foldWord));
    const ascii = [...this.#wanted].filter((w) => /^[a-z0-9]+$/.test(w));
    this.asciiWords = ascii;
    // Letters matched as [xX] rather than with the i flag, which under u also folds ſ and K.
    const spelt = ascii.map((w) =>
      [...w].map((c) => (/[a-z]/.test(c) ? `[${c}${c.toUpperCase()}]` : c)).join(''),
    );
    this.#ascii =
      spelt.length > 0
        ? new RegExp(`(?<![\\p{L}\\p{N}])(?:${spelt.join('|')})(?![\\p{L}\\p{N}])`, 'gu')
        : undefined;
  }

  /** The first whole-word occurrence in `text` at or after `from` (a word boundary). */
  first(text: string, from = 0): Hit | undefined {
    let best: Hit | undefined;
    if (this.#ascii) {
      this.#ascii.lastIndex = from;
      const m = this.#ascii.exec(text);
      if (m) best = { start: m.index, end: m.index + m[0].length };
    }
    const before = best?.start ?? text.length;
    const rest = text.slice(from, before);
    if (!NON_ASCII.test(rest)) return best;
    NON_ASCII_RUN.lastIndex = from;
    for (let run = NON_ASCII_RUN.exec(text); run && run.index < before; run = NON_ASCII_RUN.exec(text)) {
      for (const token of run[0].matchAll(WORD)) {
        if (NON_ASCII.test(token[0]) && this.#wanted.has(foldWord(token[0]))) {
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
