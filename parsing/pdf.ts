import { inflateBounded, ZipError } from '../core/zip.ts';
import type { GridCollector } from './grid.ts';
import { type TextOutput, Unparseable } from './output.ts';
import { type PlacedText, pdfPageGrid } from './pdf-tables.ts';

/** The PDF reader is large: it is loaded the first time a PDF is parsed. */
let pdfReader: Promise<typeof import('unpdf')> | undefined;
const loadPdfReader = () => {
  pdfReader ??= import('unpdf');
  return pdfReader;
};

export class NeedsPassword extends Error {}

/** One compressed stream the reader may decode for text inflating beyond this is refused. */
const MAX_STREAM_BYTES = 32 * 1024 * 1024;
/** All of them together. */
const MAX_STREAMS_BYTES = 256 * 1024 * 1024;
/** How far before `stream` its dictionary is looked for. */
const DICTIONARY_WINDOW = 2048;

const STREAM = Buffer.from('stream');
const END_STREAM = Buffer.from('endstream');

/**
 * Inflates, under a cap, every FlateDecode stream that the reader would decode to find text (all but
 * images), before the reader sees the file: it decodes a stream whole, so a stream of 50 MB of text is
 * refused here rather than read. One pass over the file, each stream inflated once.
 */
export function checkPdfStreams(bytes: Buffer): void {
  let total = 0;
  let from = 0;
  for (;;) {
    const at = bytes.indexOf(STREAM, from);
    if (at < 0) return;
    from = at + STREAM.length;
    // `endstream` contains `stream`; a stream keyword is followed by a line end.
    if (at >= 3 && bytes.toString('latin1', at - 3, at) === 'end') continue;
    let start = from;
    if (bytes[start] === 0x0d) start++;
    if (bytes[start] === 0x0a) start++;
    if (start === from) continue;
    const end = bytes.indexOf(END_STREAM, start);
    if (end < 0) return;
    from = end + END_STREAM.length;
    const dictionary = bytes.toString('latin1', Math.max(0, at - DICTIONARY_WINDOW), at);
    const own = dictionary.slice(dictionary.lastIndexOf(' obj') + 1);
    if (!own.includes('/FlateDecode') || /\/Subtype\s*\/Image\b/.test(own)) continue;
    let data = bytes.subarray(start, end);
    // A zlib header (FlateDecode streams have one) before the raw DEFLATE data.
    if (data.length > 2 && (data[0]! & 0x0f) === 8 && ((data[0]! << 8) | data[1]!) % 31 === 0)
      data = data.subarray(2);
    try {
      total += inflateBounded(data, Math.min(MAX_STREAM_BYTES, MAX_STREAMS_BYTES - total), () => {});
    } catch (err) {
      if (err instanceof ZipError && err.message.includes('inflates beyond'))
        throw new Unparseable(
          MAX_STREAMS_BYTES - total < MAX_STREAM_BYTES
            ? 'a PDF whose compressed streams inflate beyond 256 MB in total'
            : 'a PDF with a compressed stream that inflates beyond 32 MB',
        );
      // A stream that is encrypted or damaged is the reader's to judge.
    }
  }
}

/** A page's table, if its text items hold one, as a grid named after the page. */
function collectTable(n: number, items: readonly PlacedText[], grids: GridCollector): void {
  const rows = pdfPageGrid(items);
  if (!rows) return;
  grids.sheet(`Page ${n}`);
  rows.forEach((cells, r) => {
    grids.row(
      r,
      cells.map((value, column) => ({ column, value })),
    );
  });
}

/**
 * A PDF's text, page by page, at most `maxPages` pages and no more once the output is full; the
 * document's page count goes to `pages` first. With `grids`, a page whose text holds a table of aligned
 * columns is also read as a grid (pdf-tables.ts).
 */
export async function readPdf(
  bytes: Buffer,
  out: TextOutput,
  found: { pages: number | null },
  maxPages: number,
  grids?: GridCollector,
): Promise<void> {
  checkPdfStreams(bytes);
  const { getDocumentProxy } = await loadPdfReader();
  let pdf: Awaited<ReturnType<typeof getDocumentProxy>>;
  try {
    pdf = await getDocumentProxy(new Uint8Array(bytes), { verbosity: 0 });
  } catch (err) {
    if ((err as { name?: string }).name === 'PasswordException') throw new NeedsPassword();
    throw new Unparseable('a damaged PDF');
  }
  try {
    const total = pdf.numPages;
    found.pages = total;
    const read = Math.min(total, maxPages);
    for (let n = 1; n <= read; n++) {
      const page = await pdf.getPage(n);
      const content = await page.getTextContent();
      let text = '';
      const placed: PlacedText[] = [];
      for (const item of content.items)
        if ('str' in item && item.str != null) {
          text += item.hasEOL ? `${item.str}\n` : item.str;
          const [, , , , x, y] = item.transform as number[];
          placed.push({ text: item.str, x: x!, y: y!, width: item.width, height: item.height });
        }
      page.cleanup();
      if (grids) collectTable(n, placed, grids);
      out.add(`${n > 1 ? '\n\n' : ''}${text.trim()}`);
    }
    if (read < total)
      out.note(
        `only the first ${read.toLocaleString('en')} of ${total.toLocaleString('en')} pages were read`,
      );
  } finally {
    await pdf.destroy();
  }
}
