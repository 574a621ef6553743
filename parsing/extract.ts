import type ExcelJS from 'exceljs';
import { strFromU8, unzipSync } from 'fflate';
import type mammoth from 'mammoth';

// The readers of PDF, DOCX and XLSX are large: each is loaded the first time a file of its kind is parsed.
let pdfReader: Promise<typeof import('unpdf')> | undefined;
let docxReader: Promise<typeof mammoth> | undefined;
let xlsxReader: Promise<typeof ExcelJS> | undefined;
const loadPdfReader = () => {
  pdfReader ??= import('unpdf');
  return pdfReader;
};
const loadDocxReader = () => {
  // CommonJS modules: the module's exports are the default export.
  docxReader ??= import('mammoth').then((m) => (m as unknown as { default: typeof mammoth }).default);
  return docxReader;
};
const loadXlsxReader = () => {
  xlsxReader ??= import('exceljs').then((m) => (m as unknown as { default: typeof ExcelJS }).default);
  return xlsxReader;
};

/** What parsing a file came to: its text, or why there is none. */
export type Extraction =
  | { state: 'completed'; text: string; format: string; pages: number | null; cut?: string }
  | { state: 'not-parseable' | 'needs-input'; reason: string };

export interface ExtractLimits {
  /** Larger files are not parsed. */
  maxBytes: number;
  /** A parse that takes longer is given up. */
  timeoutMs: number;
  /** Text beyond this many characters is dropped. */
  maxChars: number;
}

export const DEFAULT_EXTRACT_LIMITS: ExtractLimits = {
  maxBytes: 32 * 1024 * 1024,
  timeoutMs: 120_000,
  maxChars: 1_000_000,
};

/** A file inside a zip that inflates beyond this is refused (a zip bomb, not a document). */
const MAX_ENTRY_BYTES = 64 * 1024 * 1024;

class Unparseable extends Error {}
class NeedsPassword extends Error {}

type Format = 'pdf' | 'docx' | 'xlsx' | 'pptx' | 'ods' | 'text' | 'image' | 'ole' | 'unknown';

function startsWith(bytes: Buffer, magic: number[]): boolean {
  return magic.every((b, i) => bytes[i] === b);
}

function zipEntries(bytes: Buffer, wanted: (name: string) => boolean): Record<string, Uint8Array> {
  try {
    return unzipSync(new Uint8Array(bytes), {
      filter: (f) => {
        if (!wanted(f.name)) return false;
        if (f.originalSize > MAX_ENTRY_BYTES) throw new Unparseable(`${f.name} inflates beyond the limit`);
        return true;
      },
    });
  } catch (err) {
    if (err instanceof Unparseable) throw err;
    throw new Unparseable('a damaged zip archive');
  }
}

/** The format by content first (names and declared types lie), then by declared type for plain text. */
function detect(bytes: Buffer, contentType: string, filename: string): Format {
  if (startsWith(bytes, [0x25, 0x50, 0x44, 0x46])) return 'pdf';
  if (startsWith(bytes, [0x50, 0x4b, 0x03, 0x04])) {
    const names = new Set<string>();
    let entries: Record<string, Uint8Array>;
    try {
      // Lists the names; inflates only the small mimetype entry of an OpenDocument file.
      entries = unzipSync(new Uint8Array(bytes), {
        filter: (f) => {
          names.add(f.name);
          return f.name === 'mimetype' && f.originalSize < 256;
        },
      });
    } catch {
      return 'unknown';
    }
    if (names.has('word/document.xml')) return 'docx';
    if (names.has('xl/workbook.xml')) return 'xlsx';
    if (names.has('ppt/presentation.xml')) return 'pptx';
    const mimetype = entries.mimetype ? strFromU8(entries.mimetype).trim() : '';
    if (mimetype === 'application/vnd.oasis.opendocument.spreadsheet') return 'ods';
    return 'unknown';
  }
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
  if (type.startsWith('text/') || type === 'application/json' || /\.(txt|md|csv|tsv|json)$/i.test(filename))
    return 'text';
  return 'unknown';
}

async function fromPdf(bytes: Buffer): Promise<{ text: string; pages: number }> {
  const { getDocumentProxy, extractText: pdfText } = await loadPdfReader();
  let pdf: Awaited<ReturnType<typeof getDocumentProxy>>;
  try {
    pdf = await getDocumentProxy(new Uint8Array(bytes), { verbosity: 0 });
  } catch (err) {
    if ((err as { name?: string }).name === 'PasswordException') throw new NeedsPassword();
    throw new Unparseable('a damaged PDF');
  }
  try {
    const { totalPages, text } = await pdfText(pdf, { mergePages: false });
    return { text: text.map((t) => t.trim()).join('\n\n'), pages: totalPages };
  } finally {
    await pdf.destroy();
  }
}

async function fromDocx(bytes: Buffer): Promise<string> {
  const result = await (await loadDocxReader()).extractRawText({ buffer: bytes });
  return result.value;
}

function rowsAsText(rows: string[][]): string[] {
  const lines: string[] = [];
  for (const row of rows) {
    let end = row.length;
    while (end > 0 && row[end - 1] === '') end--;
    lines.push(row.slice(0, end).join('\t'));
  }
  while (lines.length > 0 && lines[lines.length - 1] === '') lines.pop();
  return lines;
}

function sheetsAsText(sheets: { name: string; rows: string[][] }[]): string {
  return sheets.map((s) => [`Sheet: ${s.name}`, ...rowsAsText(s.rows)].join('\n')).join('\n\n');
}

/** Cells never hold a tab or line break in the text, so each row stays one tab-separated line. */
const flat = (s: string) => s.replace(/[\t\r\n]+/g, ' ').trim();

async function fromXlsx(bytes: Buffer): Promise<{ text: string; pages: number }> {
  const workbook = new (await loadXlsxReader()).Workbook();
  // exceljs's own Buffer type predates Node's generic Buffer.
  await workbook.xlsx.load(bytes as unknown as ArrayBuffer);
  const sheets = workbook.worksheets.map((ws) => {
    const rows: string[][] = [];
    ws.eachRow({ includeEmpty: true }, (row) => {
      const cells: string[] = [];
      row.eachCell({ includeEmpty: true }, (cell, col) => {
        cells[col - 1] = flat(cell.text ?? '');
      });
      rows.push(Array.from(cells, (c) => c ?? ''));
    });
    return { name: ws.name, rows };
  });
  return { text: sheetsAsText(sheets), pages: sheets.length };
}

const ENTITIES: Record<string, string> = { lt: '<', gt: '>', amp: '&', quot: '"', apos: "'" };
function unescapeXml(s: string): string {
  return s.replace(/&(#x[0-9a-f]+|#\d+|lt|gt|amp|quot|apos);/gi, (_, e: string) =>
    e[0] === '#'
      ? String.fromCodePoint(
          e[1] === 'x' || e[1] === 'X' ? Number.parseInt(e.slice(2), 16) : Number(e.slice(1)),
        )
      : ENTITIES[e]!,
  );
}

function attr(attrs: string, name: string): string | undefined {
  const m = new RegExp(`${name}="([^"]*)"`).exec(attrs);
  return m ? unescapeXml(m[1]!) : undefined;
}

/** Repeats above this are what spreadsheet programs write to pad a sheet; they hold nothing. */
const MAX_REPEAT = 1000;

function fromOds(bytes: Buffer): { text: string; pages: number } {
  const content = zipEntries(bytes, (n) => n === 'content.xml')['content.xml'];
  if (!content) throw new Unparseable('an OpenDocument file without content');
  const xmlText = strFromU8(content);
  const sheets: { name: string; rows: string[][] }[] = [];
  let sheet: { name: string; rows: string[][] } | undefined;
  let row: string[] | undefined;
  let rowRepeat = 1;
  let cell: string | undefined;
  let cellRepeat = 1;
  const token =
    /<(\/?)(table:table|table:table-row|table:table-cell|table:covered-table-cell|text:p|text:s|text:tab|text:line-break)(?=[\s/>])([^>]*?)(\/?)>|<[^>]*>|([^<]+)/g;
  for (const m of xmlText.matchAll(token)) {
    const [, close, tag, attrs = '', selfClosing, text] = m;
    if (text !== undefined) {
      if (cell !== undefined) cell += unescapeXml(text);
      continue;
    }
    if (!tag) continue;
    const opening = !close;
    if (tag === 'table:table') {
      if (opening) {
        sheet = { name: attr(attrs, 'table:name') ?? `Sheet ${sheets.length + 1}`, rows: [] };
        sheets.push(sheet);
      } else sheet = undefined;
    } else if (tag === 'table:table-row') {
      if (opening && !selfClosing) {
        row = [];
        rowRepeat = Number(attr(attrs, 'table:number-rows-repeated') ?? 1);
      } else if (!opening && row && sheet) {
        const empty = row.every((c) => c === '');
        for (let i = 0; i < (empty ? Math.min(rowRepeat, 1) : Math.min(rowRepeat, MAX_REPEAT)); i++)
          sheet.rows.push(row);
        row = undefined;
      }
    } else if (tag === 'table:table-cell' || tag === 'table:covered-table-cell') {
      const repeat = Math.min(Number(attr(attrs, 'table:number-columns-repeated') ?? 1), MAX_REPEAT);
      if (opening && selfClosing) {
        for (let i = 0; i < repeat; i++) row?.push('');
      } else if (opening) {
        cell = '';
        cellRepeat = repeat;
      } else if (cell !== undefined) {
        for (let i = 0; i < cellRepeat; i++) row?.push(flat(cell));
        cell = undefined;
      }
    } else if (cell !== undefined) {
      // A new paragraph, a space run, a tab or a line break inside a cell: a space.
      if (
        tag === 'text:s' ||
        tag === 'text:tab' ||
        tag === 'text:line-break' ||
        (tag === 'text:p' && opening && cell !== '')
      )
        cell += ' ';
    }
  }
  return { text: sheetsAsText(sheets), pages: sheets.length };
}

function fromPptx(bytes: Buffer): { text: string; pages: number } {
  const entries = zipEntries(bytes, (n) => /^ppt\/slides\/slide\d+\.xml$/.test(n));
  const names = Object.keys(entries).sort((a, b) => Number(/\d+/.exec(a)![0]) - Number(/\d+/.exec(b)![0]));
  const slides = names.map((name, i) => {
    const slideXml = strFromU8(entries[name]!);
    const paragraphs = [...slideXml.matchAll(/<a:p\b[^>]*>([\s\S]*?)<\/a:p>/g)]
      .map((p) => [...p[1]!.matchAll(/<a:t\b[^>]*>([^<]*)<\/a:t>/g)].map((t) => unescapeXml(t[1]!)).join(''))
      .filter((p) => p.trim() !== '');
    return [`Slide ${i + 1}`, ...paragraphs].join('\n');
  });
  return { text: slides.join('\n\n'), pages: slides.length };
}

function fromText(bytes: Buffer): string {
  try {
    return new TextDecoder('utf-8', { fatal: true }).decode(bytes);
  } catch {
    throw new Unparseable('text that is not UTF-8');
  }
}

/** Line ends as \n, no NUL (PostgreSQL text cannot hold one), no trailing blanks, at most maxChars. */
function tidy(text: string, maxChars: number): string {
  const clean = text
    .replace(/\r\n?/g, '\n')
    .replaceAll('\u0000', '')
    .replace(/[ \t]+$/gm, '')
    .replace(/\n{3,}/g, '\n\n')
    .trim();
  return clean.length > maxChars ? clean.slice(0, maxChars) : clean;
}

async function extractByFormat(
  format: Format,
  bytes: Buffer,
): Promise<{ text: string; pages: number | null } | string> {
  switch (format) {
    case 'pdf':
      return fromPdf(bytes);
    case 'docx':
      return { text: await fromDocx(bytes), pages: null };
    case 'xlsx':
      return fromXlsx(bytes);
    case 'ods':
      return fromOds(bytes);
    case 'pptx':
      return fromPptx(bytes);
    case 'text':
      return { text: fromText(bytes), pages: null };
    case 'image':
      return 'an image (no text to extract)';
    case 'ole':
      return 'a legacy or password-protected Office file';
    default:
      return 'a file type that cannot be read as text';
  }
}

/** Extracts the text of a stored file; never throws for a bad file, only says why it has no text. */
export async function extractText(
  file: { content: Buffer; content_type: string; filename: string },
  limits: ExtractLimits = DEFAULT_EXTRACT_LIMITS,
): Promise<Extraction> {
  if (file.content.length > limits.maxBytes) {
    return { state: 'not-parseable', reason: `larger than ${limits.maxBytes} bytes` };
  }
  const format = detect(file.content, file.content_type, file.filename);
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(
      () => reject(new Unparseable(`took longer than ${limits.timeoutMs} ms`)),
      limits.timeoutMs,
    );
  });
  try {
    const result = await Promise.race([extractByFormat(format, file.content), timeout]);
    if (typeof result === 'string') return { state: 'not-parseable', reason: result };
    const text = tidy(result.text, limits.maxChars);
    if (text === '') return { state: 'not-parseable', reason: 'no text found (a scan or an empty file)' };
    return { state: 'completed', text, format, pages: result.pages };
  } catch (err) {
    if (err instanceof NeedsPassword) return { state: 'needs-input', reason: 'the PDF needs a password' };
    if (err instanceof Unparseable) return { state: 'not-parseable', reason: err.message };
    return { state: 'not-parseable', reason: `a damaged ${format} file` };
  } finally {
    clearTimeout(timer);
  }
}
