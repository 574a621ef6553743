import type { ZipEntry, ZipReader } from '../core/zip.ts';

/** What an XML tokenizer reports, in document order. Nothing is nested: depth costs nothing. */
export interface XmlHandler {
  open(name: string, attrs: string, selfClosing: boolean): void;
  close(name: string): void;
  /** Character data with entities resolved; one run of text may come in several pieces. */
  text(text: string): void;
}

/** XML that cannot be tokenized within the bounds. */
export class XmlError extends Error {}

/** A tag, comment or CDATA section longer than this is refused rather than buffered. */
const MAX_MARKUP = 1024 * 1024;

const ENTITIES: Record<string, string> = { lt: '<', gt: '>', amp: '&', quot: '"', apos: "'" };

function codePoint(n: number): string {
  return Number.isInteger(n) && n >= 0 && n <= 0x10ffff ? String.fromCodePoint(n) : '\ufffd';
}

/** The five predefined entities and character references; any other entity stays as written. */
export function unescapeXml(s: string): string {
  if (!s.includes('&')) return s;
  return s.replace(/&(#x[0-9a-f]{1,8}|#\d{1,8}|lt|gt|amp|quot|apos);/gi, (_, e: string) => {
    if (e[0] !== '#') return ENTITIES[e.toLowerCase()] ?? `&${e};`;
    return codePoint(e[1] === 'x' || e[1] === 'X' ? Number.parseInt(e.slice(2), 16) : Number(e.slice(1)));
  });
}

const isSpace = (c: number) => c === 32 || c === 9 || c === 10 || c === 13;

/** The value of one attribute in a tag's attribute text, unescaped; a linear scan. */
export function attribute(attrs: string, name: string): string | undefined {
  for (let at = attrs.indexOf(name); at >= 0; at = attrs.indexOf(name, at + 1)) {
    if (at > 0 && !isSpace(attrs.charCodeAt(at - 1))) continue;
    let i = at + name.length;
    while (isSpace(attrs.charCodeAt(i))) i++;
    if (attrs[i] !== '=') continue;
    i++;
    while (isSpace(attrs.charCodeAt(i))) i++;
    const quote = attrs[i];
    if (quote !== '"' && quote !== "'") continue;
    const close = attrs.indexOf(quote, i + 1);
    return close < 0 ? undefined : unescapeXml(attrs.slice(i + 1, close));
  }
  return undefined;
}

const CDATA = '<![CDATA[';
const COMMENT = '<!--';

/** An unfinished tag, comment or CDATA section: its pieces so far, and how its scan stands. */
interface Pending {
  pieces: string[];
  length: number;
  /** `>` for a tag, else the sequence that closes the comment or CDATA section. */
  closing: string;
  /** The quote open at the end of the pieces (a tag), or their last two characters (the others). */
  quote: number;
  tail: string;
}

/**
 * A streaming XML tokenizer: fed text a piece at a time, it reports tags and text as soon as they are
 * complete. An unfinished tag is kept as pieces and only the new piece is scanned, so the work is linear
 * in the input however it is cut. No DTD, no entity expansion beyond the predefined five.
 */
export class XmlTokenizer {
  /** Text not yet reported: at most a short unfinished entity or markup start. */
  private buffer = '';
  private pending: Pending | undefined;

  constructor(private readonly handler: XmlHandler) {}

  write(piece: string): void {
    let rest = piece;
    if (this.pending) {
      const end = this.continuePending(this.pending, rest);
      if (end < 0) return;
      const markup = this.pending.pieces.join('') + rest.slice(0, end);
      this.pending = undefined;
      this.markup(markup, 0, markup.length);
      rest = rest.slice(end);
    }
    this.buffer = this.buffer === '' ? rest : this.buffer + rest;
    this.drain(false);
  }

  end(): void {
    this.drain(true);
    this.buffer = '';
    this.pending = undefined;
  }

  /** Scans a new piece of unfinished markup: where in it the markup ends, or -1 (the piece is kept). */
  private continuePending(p: Pending, piece: string): number {
    let end = -1;
    if (p.closing === '>') {
      let quote = p.quote;
      for (let i = 0; i < piece.length && end < 0; i++) {
        const c = piece.charCodeAt(i);
        if (quote !== 0) {
          if (c === quote) quote = 0;
        } else if (c === 34 || c === 39) quote = c;
        else if (c === 62) end = i + 1;
      }
      p.quote = quote;
    } else {
      const joined = p.tail + piece.slice(0, 3);
      const early = joined.indexOf(p.closing);
      const late = early >= 0 ? -1 : piece.indexOf(p.closing);
      if (early >= 0) end = early + 3 - p.tail.length;
      else if (late >= 0) end = late + 3;
      p.tail = (p.tail + piece).slice(-2);
    }
    if (end >= 0) return end;
    p.pieces.push(piece);
    p.length += piece.length;
    if (p.length > MAX_MARKUP) throw new XmlError('an XML tag longer than 1 MB');
    return -1;
  }

  private drain(final: boolean): void {
    const b = this.buffer;
    let pos = 0;
    while (pos < b.length) {
      const lt = b.indexOf('<', pos);
      if (lt !== pos) {
        let stop = lt < 0 ? b.length : lt;
        // An entity cut by the end of this piece waits for the next one.
        if (lt < 0 && !final) {
          const amp = b.lastIndexOf('&');
          if (amp >= pos && stop - amp < 12 && !b.includes(';', amp)) stop = amp;
        }
        if (stop > pos) this.handler.text(unescapeXml(b.slice(pos, stop)));
        pos = stop;
        if (lt < 0) break;
        continue;
      }
      const rest = b.slice(pos, pos + CDATA.length);
      // Too short to tell a comment or CDATA section from a tag: wait for more.
      if (!final && rest.length < CDATA.length && (CDATA.startsWith(rest) || COMMENT.startsWith(rest))) break;
      const end = markupEnd(b, pos);
      if (end.at < 0) {
        if (!final) this.pending = { pieces: [b.slice(pos)], length: b.length - pos, ...end.state };
        pos = b.length;
        break;
      }
      this.markup(b, pos, end.at);
      pos = end.at;
    }
    this.buffer = b.slice(pos);
  }

  private markup(b: string, start: number, end: number): void {
    const second = b.charCodeAt(start + 1);
    if (second === 33 /* ! */) {
      if (b.startsWith(CDATA, start)) this.handler.text(b.slice(start + CDATA.length, end - 3));
      return; // comments and declarations say nothing
    }
    if (second === 63 /* ? */) return;
    if (second === 47 /* / */) {
      this.handler.close(b.slice(start + 2, end - 1).trim());
      return;
    }
    let inner = end - 1;
    const selfClosing = b.charCodeAt(inner - 1) === 47;
    if (selfClosing) inner--;
    let nameEnd = start + 1;
    while (nameEnd < inner && !isSpace(b.charCodeAt(nameEnd))) nameEnd++;
    this.handler.open(b.slice(start + 1, nameEnd), b.slice(nameEnd, inner), selfClosing);
  }
}

/** Where the markup starting at `pos` ends (just past it), or -1 with how far its scan got. */
function markupEnd(b: string, pos: number): { at: number; state: Omit<Pending, 'pieces' | 'length'> } {
  const closing = b.startsWith(COMMENT, pos) ? '-->' : b.startsWith(CDATA, pos) ? ']]>' : '>';
  if (closing !== '>') {
    const close = b.indexOf(closing, pos + 4);
    return { at: close < 0 ? -1 : close + 3, state: { closing, quote: 0, tail: b.slice(-2) } };
  }
  let quote = 0;
  for (let i = pos + 1; i < b.length; i++) {
    const c = b.charCodeAt(i);
    if (quote !== 0) {
      if (c === quote) quote = 0;
    } else if (c === 34 || c === 39) quote = c;
    else if (c === 62) return { at: i + 1, state: { closing, quote: 0, tail: '' } };
  }
  return { at: -1, state: { closing, quote, tail: '' } };
}

/** Streams one zip entry through the tokenizer as it inflates; at most `maxBytes` of it. */
export function readXml(zip: ZipReader, entry: ZipEntry, handler: XmlHandler, maxBytes?: number): void {
  const decoder = new TextDecoder('utf-8');
  const tokenizer = new XmlTokenizer(handler);
  zip.read(entry, (chunk) => tokenizer.write(decoder.decode(chunk, { stream: true })), maxBytes);
  tokenizer.write(decoder.decode());
  tokenizer.end();
}
