/** Characters per page of a document's text: a page fits comfortably in a model's context. */
export const TEXT_PAGE_CHARS = 12_000;

/**
 * Splits text into pages of at most `size` characters, cutting at the last paragraph break in the
 * second half of a page, else the last line break, else the last space, else anywhere.
 */
export function textPages(text: string, size = TEXT_PAGE_CHARS): string[] {
  const pages: string[] = [];
  let at = 0;
  while (at < text.length) {
    if (text.length - at <= size) {
      pages.push(text.slice(at));
      break;
    }
    const window = text.slice(at, at + size);
    const half = Math.floor(size / 2);
    let cut = -1;
    for (const sep of ['\n\n', '\n', ' ']) {
      const i = window.lastIndexOf(sep);
      if (i >= half) {
        cut = i + sep.length;
        break;
      }
    }
    if (cut === -1) {
      cut = size;
      // Never between the two halves of a surrogate pair.
      const code = window.charCodeAt(cut - 1);
      if (code >= 0xd800 && code <= 0xdbff) cut--;
    }
    pages.push(text.slice(at, at + cut).trimEnd());
    at += cut;
  }
  return pages;
}
