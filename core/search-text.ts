/** Folds a word as FTS5's unicode61 tokenizer does: lower case, diacritics removed. */
export function foldWord(word: string): string {
  return word.normalize('NFD').replace(/\p{M}/gu, '').toLowerCase();
}

const WORD = /[\p{L}\p{N}]+/gu;

/** The words of a search query; punctuation and operators are separators, never syntax. */
export function searchWords(query: string): string[] {
  return [...new Set(query.match(WORD) ?? [])];
}

/**
 * A window of about `width` characters around the first occurrence of any of `words` in `text`,
 * each occurrence marked «like this», with … where the text was cut.
 */
export function passage(text: string, words: readonly string[], width = 160): string {
  const wanted = new Set(words.map(foldWord));
  const hits: { start: number; end: number }[] = [];
  for (const m of text.matchAll(WORD)) {
    if (wanted.has(foldWord(m[0]))) hits.push({ start: m.index, end: m.index + m[0].length });
  }
  const first = hits[0];
  if (!first) return text.length > width ? `${text.slice(0, width).trimEnd()}…` : text;
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
  for (const h of hits) {
    if (h.start < from || h.end > end) continue;
    out += `${text.slice(at, h.start)}«${text.slice(h.start, h.end)}»`;
    at = h.end;
  }
  out += text.slice(at, end);
  return `${from > 0 ? '…' : ''}${out.trim()}${end < text.length ? '…' : ''}`;
}
