import { SaxesParser } from 'saxes';
import type { ZipEntry, ZipReader } from '../core/zip.ts';

/** An element as a reader sees it: its namespace URI ('' for none) and local name, never its prefix. */
export interface XmlName {
  uri: string;
  local: string;
}

export interface XmlElement extends XmlName {
  selfClosing: boolean;
  /** An attribute's value by namespace URI ('' for an unprefixed attribute, or any of a set) and local name. */
  attribute(uri: string | ReadonlySet<string>, local: string): string | undefined;
}

/**
 * What a reader is told, in document order; every open element is closed, self-closing ones at once.
 * The element objects are reused from one call to the next: a reader copies what it keeps.
 */
export interface XmlHandler {
  open(element: XmlElement): void;
  close(element: XmlName): void;
  /** Character data with references resolved; one run of text may come in several pieces. */
  text(text: string): void;
}

/** XML that cannot be read within the bounds, or is too broken to read; the message says which. */
export class XmlError extends Error {}

/** A tag, comment or CDATA section longer than this is refused rather than buffered. */
const MAX_MARKUP = 1024 * 1024;
/**
 * saxes holds a run of text whole until the markup after it: a run longer than this is refused rather
 * than held (a 64 MB run took a parse past 256 MB). A text keeps a million characters at most anyway.
 */
const MAX_TEXT_RUN = 8 * 1024 * 1024;
/**
 * saxes holds every open element (300 to 600 bytes each): 400,000 open elements came near a 256 MB parse
 * limit. No real document nests anywhere near this deep, so deeper nesting is refused rather than held.
 */
const MAX_DEPTH = 10_000;
/** Well-formedness errors tolerated (a truncated part, an undeclared entity) before a part is refused. */
const MAX_ERRORS = 100;

const XML_NS = 'http://www.w3.org/XML/1998/namespace';
const XMLNS_NS = 'http://www.w3.org/2000/xmlns/';

/**
 * Namespace bindings in force. saxes's own namespace mode looks a prefix up through every open element
 * (quadratic in the depth), so prefixes are resolved here: a stack of URIs per prefix, O(1) a lookup.
 */
class Scope {
  private readonly bound = new Map<string, string[]>([
    ['xml', [XML_NS]],
    ['xmlns', [XMLNS_NS]],
  ]);
  /** For each open element that declared bindings: its depth and the prefixes it bound. */
  private readonly declared: { depth: number; prefixes: string[] }[] = [];
  /** Bindings declared by the tag being read, in force once it opens. */
  private pending: [prefix: string, uri: string][] | undefined;
  depth = 0;

  /** Notes an attribute of the tag being read if it binds a prefix (`xmlns`, `xmlns:p`). */
  attribute(name: string, value: string): void {
    if (!name.startsWith('xmlns') || (name.length > 5 && name.charCodeAt(5) !== 58)) return;
    this.pending ??= [];
    this.pending.push([name.slice(6), value.trim()]);
  }

  enter(): void {
    this.depth++;
    const pending = this.pending;
    if (!pending) return;
    this.pending = undefined;
    for (const [prefix, uri] of pending) {
      const uris = this.bound.get(prefix);
      if (uris) uris.push(uri);
      else this.bound.set(prefix, [uri]);
    }
    this.declared.push({ depth: this.depth, prefixes: pending.map(([prefix]) => prefix) });
  }

  leave(): void {
    const top = this.declared[this.declared.length - 1];
    if (top?.depth === this.depth) {
      for (const prefix of top.prefixes) this.bound.get(prefix)!.pop();
      this.declared.pop();
    }
    this.depth--;
  }

  resolve(prefix: string): string {
    const uris = this.bound.get(prefix);
    return uris?.[uris.length - 1] ?? '';
  }

  /** Sets `into` to an element's qualified name as namespace URI and local name. */
  name(qualified: string, into: XmlName): void {
    const colon = qualified.indexOf(':');
    into.uri = this.resolve(colon < 0 ? '' : qualified.slice(0, colon));
    into.local = colon < 0 ? qualified : qualified.slice(colon + 1);
  }
}

/** The element being opened; one object, reused, so reading an element allocates nothing of its own. */
class OpenElement implements XmlElement {
  uri = '';
  local = '';
  selfClosing = false;
  attributes: Record<string, string> = {};

  constructor(private readonly scope: Scope) {}

  attribute(uri: string | ReadonlySet<string>, local: string): string | undefined {
    // An unprefixed attribute is in no namespace.
    if (uri === '') return local === 'xmlns' ? undefined : this.attributes[local];
    for (const name in this.attributes) {
      const colon = name.length - local.length - 1;
      if (colon < 1 || name.charCodeAt(colon) !== 58 || !name.endsWith(local)) continue;
      const found = this.scope.resolve(name.slice(0, colon));
      if (typeof uri === 'string' ? found === uri : uri.has(found)) return this.attributes[name];
    }
    return undefined;
  }
}

/**
 * A namespace-aware streaming XML reader over saxes: fed text a piece at a time, it reports elements by
 * namespace URI and local name as they complete. No DTD is read and no entity beyond the predefined
 * five is expanded. Markup is bounded (1 MB a tag, comment or CDATA section), as are depth and errors.
 */
export class XmlReader {
  private readonly parser = new SaxesParser({ xmlns: false, position: true });
  private readonly scope = new Scope();
  private errors = 0;
  private ending = false;
  private firstError = '';
  /** Characters written so far, where the last event was, and the first `<` after it (-1 if none yet). */
  private written = 0;
  private lastEvent = 0;
  private markupStart = -1;

  constructor(
    handler: XmlHandler,
    private readonly what = 'the XML',
  ) {
    const p = this.parser;
    const seen = () => {
      this.lastEvent = p.position;
    };
    const scope = this.scope;
    const opened = new OpenElement(scope);
    const closed: XmlName = { uri: '', local: '' };
    p.on('attribute', (attribute) => scope.attribute(attribute.name, attribute.value));
    p.on('opentag', (tag) => {
      seen();
      scope.enter();
      if (scope.depth > MAX_DEPTH)
        throw new XmlError(`${what} nests elements more than ${MAX_DEPTH.toLocaleString('en')} deep`);
      scope.name(tag.name, opened);
      opened.selfClosing = tag.isSelfClosing;
      opened.attributes = tag.attributes;
      handler.open(opened);
    });
    p.on('closetag', (tag) => {
      seen();
      scope.name(tag.name, closed);
      handler.close(closed);
      scope.leave();
    });
    p.on('text', (text) => {
      seen();
      handler.text(text);
    });
    p.on('cdata', (text) => {
      seen();
      handler.text(text);
    });
    for (const quiet of ['comment', 'processinginstruction', 'doctype', 'xmldecl'] as const)
      p.on(quiet, seen);
    p.on('error', (err) => {
      if (this.ending) return;
      this.firstError ||= err.message;
      if (++this.errors > MAX_ERRORS)
        throw new XmlError(`${what} is not well-formed XML (${this.firstError})`);
    });
  }

  write(piece: string): void {
    if (piece === '') return;
    const before = this.lastEvent;
    this.parser.write(piece);
    // Where markup began after the last event: saxes buffers markup whole, so its length is bounded here.
    if (this.lastEvent !== before || this.markupStart < 0) {
      const lt = piece.indexOf('<', Math.max(this.lastEvent - 1 - this.written, 0));
      this.markupStart = lt < 0 ? -1 : this.written + lt;
    }
    this.written += piece.length;
    if (this.markupStart >= 0 && this.written - this.markupStart > MAX_MARKUP)
      throw new XmlError(`${this.what} has a tag longer than 1 MB`);
    if (this.markupStart < 0 && this.written - this.lastEvent > MAX_TEXT_RUN)
      throw new XmlError(`${this.what} has a run of text longer than 8 MB`);
  }

  /** Ends the part; what is left open is closed quietly, as a truncated part is read as far as it goes. */
  end(): void {
    this.ending = true;
    this.parser.close();
  }
}

/** Bytes read before the encoding is chosen: enough for a byte-order mark and an XML declaration. */
const HEAD_BYTES = 256;

/** The encoding of an XML part from its first bytes: a byte-order mark, `<?` in UTF-16, the declaration. */
function encodingOf(head: Uint8Array, what: string): string {
  if (head[0] === 0xef && head[1] === 0xbb && head[2] === 0xbf) return 'utf-8';
  if ((head[0] === 0xff && head[1] === 0xfe) || (head[0] === 0x3c && head[1] === 0 && head[2] === 0x3f))
    return 'utf-16le';
  if ((head[0] === 0xfe && head[1] === 0xff) || (head[0] === 0 && head[1] === 0x3c && head[2] === 0))
    return 'utf-16be';
  const declaration = /^<\?xml[^>]*\bencoding\s*=\s*["']([A-Za-z0-9._-]{1,40})["']/.exec(
    new TextDecoder('latin1').decode(head.subarray(0, HEAD_BYTES)),
  );
  const label = declaration?.[1]?.toLowerCase();
  // A part that says UTF-16 but is not two bytes a character is read as what it is.
  if (!label || label.startsWith('utf-16') || label === 'unicode') return 'utf-8';
  try {
    return new TextDecoder(label).encoding;
  } catch {
    throw new XmlError(`${what} is in an encoding that cannot be read (${label})`);
  }
}

/** Bytes decoded into one string at a time. */
const DECODE_BYTES = 32 * 1024;

/** Streams one zip entry through the reader as it inflates, decoded as its bytes say; at most `maxBytes`. */
export function readXml(zip: ZipReader, entry: ZipEntry, handler: XmlHandler, maxBytes?: number): void {
  const reader = new XmlReader(handler, entry.name);
  let decoder: TextDecoder | undefined;
  let head = new Uint8Array(0);
  const decode = (bytes: Uint8Array, last: boolean) => {
    decoder ??= new TextDecoder(encodingOf(bytes, entry.name));
    // An inflated chunk can be megabytes: decoded in small pieces, its strings stay in the young
    // generation and are collected as they go, rather than piling up in the large-object space.
    for (let at = 0; at < bytes.length; at += DECODE_BYTES)
      reader.write(decoder.decode(bytes.subarray(at, at + DECODE_BYTES), { stream: true }));
    if (last) reader.write(decoder.decode());
  };
  zip.read(
    entry,
    (chunk) => {
      if (decoder) return decode(chunk, false);
      const joined = new Uint8Array(head.length + chunk.length);
      joined.set(head);
      joined.set(chunk, head.length);
      head = joined;
      if (head.length >= HEAD_BYTES) decode(head, false);
    },
    maxBytes,
  );
  decode(decoder ? new Uint8Array(0) : head, true);
  reader.end();
}
