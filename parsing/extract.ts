import { zipDocumentKind } from '../core/file-types.ts';
import { ZipError, ZipReader } from '../core/zip.ts';
import { readCsvGrid } from './csv.ts';
import { readDocx } from './docx.ts';
import { GridCollector, type SheetGrid } from './grid.ts';
import { readOds } from './ods.ts';
import { OutputFull, SheetText, TextOutput, Unparseable } from './output.ts';
import { NeedsPassword, readPdf } from './pdf.ts';
import { readPptx } from './pptx.ts';
import { readXlsx } from './xlsx.ts';
import { XmlError } from './xml.ts';

/** What parsing a file came to: its text, or why there is none. */
export type Extraction =
  | {
      state: 'completed';
      text: string;
      format: string;
      pages: number | null;
      /** Set when a bound cut the text: one sentence saying what was cut and why. */
      cut?: string;
      /**
       * For spreadsheets (XLSX, ODS, CSV): each sheet as typed cells, within the same cell cap; for a PDF,
       * each page whose text holds a table of aligned columns.
       */
      grids?: SheetGrid[];
    }
  | { state: 'not-parseable' | 'needs-input'; reason: string };

export interface ExtractLimits {
  /** Larger files are not parsed. */
  maxBytes: number;
  /** A parse that takes longer is given up. */
  timeoutMs: number;
  /** Text beyond this many characters is dropped. */
  maxChars: number;
  /** Spreadsheet cells with content beyond this many, over all sheets, are dropped. */
  maxCells?: number;
  /** PDF pages beyond this many are not read. */
  maxPdfPages?: number;
}

export const DEFAULT_EXTRACT_LIMITS: ExtractLimits = {
  maxBytes: 32 * 1024 * 1024,
  timeoutMs: 120_000,
  maxChars: 1_000_000,
  maxCells: 200_000,
  maxPdfPages: 2_000,
};

type Format = 'pdf' | 'docx' | 'xlsx' | 'pptx' | 'ods' | 'csv' | 'text' | 'image' | 'ole' | 'unknown';

function startsWith(bytes: Buffer, magic: number[]): boolean {
  return magic.every((b, i) => bytes[i] === b);
}

/** The format by content first (names and declared types lie), then by declared type for plain text. */
function detect(bytes: Buffer, contentType: string, filename: string): Format {
  if (startsWith(bytes, [0x25, 0x50, 0x44, 0x46])) return 'pdf';
  // A zip that cannot be read says why (ZipError), from the extraction below.
  if (startsWith(bytes, [0x50, 0x4b, 0x03, 0x04])) return zipDocumentKind(bytes) ?? 'unknown';
  // Password-protected Office files (and legacy .doc/.xls) are OLE compound files.
  if (startsWith(bytes, [0xd0, 0xcf, 0x11, 0xe0, 0xa1, 0xb1, 0x1a, 0xe1])) return 'ole';
  if (
    startsWith(bytes, [0x89, 0x50, 0x4e, 0x47]) ||
    startsWith(bytes, [0xff, 0xd8, 0xff]) ||
    startsWith(bytes, [0x47, 0x49, 0x46, 0x38]) ||
    contentType.startsWith('image/')
  )
    return 'image';
  const type = contentType.split(';')[0]!.trim().toLowerCase();
  const extension = filename.slice(filename.lastIndexOf('.') + 1).toLowerCase();
  if (type === 'text/csv' || extension === 'csv') return 'csv';
  if (
    type.startsWith('text/') ||
    type === 'application/json' ||
    ['txt', 'md', 'csv', 'tsv', 'json'].includes(extension)
  )
    return 'text';
  return 'unknown';
}

function utf8(bytes: Buffer): string {
  try {
    return new TextDecoder('utf-8', { fatal: true }).decode(bytes);
  } catch {
    throw new Unparseable('text that is not UTF-8');
  }
}

/** Removes blanks at the end of a line: a backwards scan, never a backtracking pattern. */
function trimLineEnd(line: string): string {
  let end = line.length;
  while (end > 0) {
    const c = line.charCodeAt(end - 1);
    if (c !== 32 && c !== 9) break;
    end--;
  }
  return end === line.length ? line : line.slice(0, end);
}

/** Line ends as \n, no NUL (PostgreSQL text cannot hold one), no trailing blanks; linear in the text. */
export function tidy(text: string): string {
  return text
    .replace(/\r\n?/g, '\n')
    .replaceAll('\u0000', '')
    .split('\n')
    .map(trimLineEnd)
    .join('\n')
    .replace(/\n{3,}/g, '\n\n')
    .trim();
}

type Found = { pages: number | null; grids?: GridCollector };

/** Reads the file into `out`; a reason string when the format has no text to read. */
async function extractByFormat(
  format: Format,
  bytes: Buffer,
  out: TextOutput,
  found: Found,
  limits: ExtractLimits,
): Promise<string | undefined> {
  const maxCells = limits.maxCells ?? DEFAULT_EXTRACT_LIMITS.maxCells!;
  const sheet = () => new SheetText(out, maxCells);
  const grids = () => {
    found.grids = new GridCollector(maxCells);
    return found.grids;
  };
  switch (format) {
    case 'pdf':
      try {
        await readPdf(bytes, out, found, limits.maxPdfPages ?? DEFAULT_EXTRACT_LIMITS.maxPdfPages!, grids());
      } finally {
        // A PDF without a table has no grids, as before.
        if (found.grids?.grids.length === 0) delete found.grids;
      }
      return undefined;
    case 'docx':
      readDocx(new ZipReader(bytes), out);
      return undefined;
    case 'xlsx':
      readXlsx(new ZipReader(bytes), sheet(), found, grids());
      return undefined;
    case 'ods':
      readOds(new ZipReader(bytes), sheet(), found, grids());
      return undefined;
    case 'pptx':
      readPptx(new ZipReader(bytes), out, found);
      return undefined;
    case 'csv': {
      // The grid first: a text cut at its character cap must not cost the figures.
      const text = utf8(bytes);
      readCsvGrid(text, 'CSV', grids());
      out.add(text);
      return undefined;
    }
    case 'text':
      out.add(utf8(bytes));
      return undefined;
    case 'image':
      return 'an image (no text to extract)';
    case 'ole':
      return 'a legacy or password-protected Office file';
    default:
      return 'a file type that cannot be read as text';
  }
}

/** Why a parse that threw has no text; undefined for a parser that stopped with its output full. */
function failure(err: unknown, format: Format): Extraction | undefined {
  if (err instanceof OutputFull) return undefined;
  if (err instanceof NeedsPassword) return { state: 'needs-input', reason: 'the PDF needs a password' };
  if (err instanceof Unparseable || err instanceof ZipError || err instanceof XmlError)
    return { state: 'not-parseable', reason: err.message };
  return { state: 'not-parseable', reason: `a damaged ${format} file` };
}

/**
 * Extracts the text of a stored file; never throws for a bad file, only says why it has no text. Every
 * parser is bounded: the zip parts it inflates, the characters, cells and pages it produces; a text
 * cut by a bound says so in `cut`.
 */
export async function extractText(
  file: { content: Buffer; content_type: string; filename: string },
  limits: ExtractLimits = DEFAULT_EXTRACT_LIMITS,
): Promise<Extraction> {
  if (file.content.length > limits.maxBytes) {
    return { state: 'not-parseable', reason: `larger than ${limits.maxBytes} bytes` };
  }
  let format: Format = 'unknown';
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(
      () => reject(new Unparseable(`took longer than ${limits.timeoutMs} ms`)),
      limits.timeoutMs,
    );
  });
  const out = new TextOutput(limits.maxChars);
  const found: Found = { pages: null };
  try {
    format = detect(file.content, file.content_type, file.filename);
    const reason = await Promise.race([
      extractByFormat(format, file.content, out, found, limits).catch((err: unknown) => {
        const failed = failure(err, format);
        if (failed) throw err;
      }),
      timeout,
    ]);
    if (typeof reason === 'string') return { state: 'not-parseable', reason };
  } catch (err) {
    return failure(err, format)!;
  } finally {
    clearTimeout(timer);
  }
  let text = tidy(out.text());
  if (text.length > limits.maxChars) {
    text = text.slice(0, limits.maxChars);
    out.note(`the text was cut at ${limits.maxChars.toLocaleString('en')} characters`);
  }
  if (text === '') return { state: 'not-parseable', reason: 'no text found (a scan or an empty file)' };
  return {
    state: 'completed',
    text,
    format,
    pages: found.pages,
    ...(out.cut ? { cut: out.cut } : {}),
    ...(found.grids ? { grids: found.grids.grids } : {}),
  };
}
