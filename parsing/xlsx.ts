import type { ZipReader } from '../core/zip.ts';
import { excelSerialDate, type GridCell, type GridCollector, isDateFormat } from './grid.ts';
import { PACKAGE_RELATIONSHIPS, RELATIONSHIPS, SHEET } from './namespaces.ts';
import { flat, MAX_CELL_CHARS, type SheetText, Unparseable } from './output.ts';
import { readXml, type XmlHandler } from './xml.ts';

/** Shared strings past this many characters in all are read as empty cells. */
const MAX_SHARED_CHARS = 16_000_000;
/** The workbook and its relationships are small parts; a larger one is refused. */
const MAX_PART_BYTES = 8 * 1024 * 1024;

const ignore = () => {};

/** The text of each shared string (`<si>`), without phonetic runs, in order; `note` hears of a cut. */
export function sharedStrings(zip: ZipReader, note: (reason: string) => void): string[] {
  const entry = zip.entry('xl/sharedStrings.xml');
  if (!entry) return [];
  const strings: string[] = [];
  let current: string | undefined;
  let inText = 0;
  let phonetic = 0;
  let chars = 0;
  readXml(zip, entry, {
    open({ uri, local }) {
      if (!SHEET.has(uri)) return;
      if (local === 'si') current = '';
      else if (local === 't') inText++;
      else if (local === 'rPh') phonetic++;
    },
    close({ uri, local }) {
      if (!SHEET.has(uri)) return;
      if (local === 'si' && current !== undefined) {
        chars += current.length;
        if (chars > MAX_SHARED_CHARS) note('shared strings past 16,000,000 characters were read as empty');
        strings.push(chars > MAX_SHARED_CHARS ? '' : flat(current));
        current = undefined;
      } else if (local === 't') inText = Math.max(0, inText - 1);
      else if (local === 'rPh') phonetic = Math.max(0, phonetic - 1);
    },
    text(t) {
      if (current !== undefined && inText > 0 && phonetic === 0 && current.length < MAX_CELL_CHARS)
        current += t;
    },
  });
  return strings;
}

/** A relationship's target as a path in the archive: absolute, or relative to the folder given. */
function partPath(folder: string, target: string): string {
  const parts: string[] = target.startsWith('/') ? [] : folder.split('/');
  for (const part of target.split('/')) {
    if (part === '..') parts.pop();
    else if (part !== '' && part !== '.') parts.push(part);
  }
  return parts.join('/');
}

/** The workbook's relationships: each id's target. */
function relationshipsOf(zip: ZipReader): Map<string, string> {
  const targets = new Map<string, string>();
  const rels = zip.entry('xl/_rels/workbook.xml.rels');
  if (!rels) return targets;
  const handler: XmlHandler = {
    open(element) {
      if (element.uri !== PACKAGE_RELATIONSHIPS || element.local !== 'Relationship') return;
      const id = element.attribute('', 'Id');
      const target = element.attribute('', 'Target');
      if (id && target) targets.set(id, target);
    },
    close: ignore,
    text: ignore,
  };
  readXml(zip, rels, handler, MAX_PART_BYTES);
  return targets;
}

/** The workbook's sheets in order, each with the path of its part. */
export function sheetsOf(zip: ZipReader): { name: string; path: string }[] {
  const targets = relationshipsOf(zip);
  const workbook = zip.entry('xl/workbook.xml');
  if (!workbook) throw new Unparseable('a workbook without xl/workbook.xml');
  const sheets: { name: string; path: string }[] = [];
  const handler: XmlHandler = {
    open(element) {
      if (!SHEET.has(element.uri) || element.local !== 'sheet') return;
      const target = targets.get(element.attribute(RELATIONSHIPS, 'id') ?? '');
      const path = target ? partPath('xl', target) : `xl/worksheets/sheet${sheets.length + 1}.xml`;
      sheets.push({ name: element.attribute('', 'name') ?? `Sheet ${sheets.length + 1}`, path });
    },
    close: ignore,
    text: ignore,
  };
  readXml(zip, workbook, handler, MAX_PART_BYTES);
  return sheets;
}

/** The zero-based column of a cell reference (`XFD1048576` → 16383), or undefined. */
function columnOf(ref: string | undefined): number | undefined {
  if (!ref) return undefined;
  let column = 0;
  let i = 0;
  for (; i < ref.length && i < 4; i++) {
    const c = ref.charCodeAt(i) & ~32; // upper case
    if (c < 65 || c > 90) break;
    column = column * 26 + (c - 64);
  }
  return i === 0 || i > 3 ? undefined : column - 1;
}

function cellText(type: string, value: string, strings: string[]): string {
  if (type === 's') return strings[Number(value.trim())] ?? '';
  if (type === 'b') return value.trim() === '1' ? 'TRUE' : 'FALSE';
  return flat(value);
}

/** One cell of a worksheet as written: its raw value, its type (`t`) and its style index (`s`). */
export interface XlsxCell {
  /** Zero-based. */
  column: number;
  /** The `<v>` text (for a shared string, its index), or an inline string's text; never empty. */
  value: string;
  /** `t`: n (number, the default), s (shared string), str, inlineStr, b, e or d. */
  type: string;
  /** `s`: the index of the cell's format in the styles part, or undefined. */
  style: number | undefined;
}

/** What reads the rows of a worksheet. */
export interface XlsxRows {
  /** A row by its one-based number and its cells with a value; rows the part leaves out are absent. */
  row(number: number, cells: XlsxCell[]): void;
  /** Cells still taken: a row holding more is handed over at once, in part. */
  readonly cellsLeft: number;
}

/** One worksheet's rows, streamed: a row is handed over when it closes; gaps are never materialised. */
export function readSheetRows(zip: ZipReader, path: string, rows: XlsxRows): void {
  const entry = zip.entry(path);
  if (!entry) return;
  let rowNumber = 0;
  let cells: XlsxCell[] = [];
  let cell: XlsxCell | undefined;
  let column = -1;
  // How deep the reader is in <v>, <is>, <t> and phonetic runs (<rPh>): a value is v's text, or is/t's.
  const depth = { v: 0, is: 0, t: 0, rPh: 0 };
  const nested = (local: string): local is keyof typeof depth =>
    local === 'v' || local === 't' || local === 'is' || local === 'rPh';
  readXml(zip, entry, {
    open(element) {
      if (!SHEET.has(element.uri)) return;
      const local = element.local;
      if (local === 'row') {
        const r = Number(element.attribute('', 'r'));
        rowNumber = Number.isInteger(r) && r > rowNumber ? r : rowNumber + 1;
        cells = [];
        column = -1;
      } else if (local === 'c') {
        const style = Number(element.attribute('', 's') ?? Number.NaN);
        column = columnOf(element.attribute('', 'r')) ?? column + 1;
        const type = element.attribute('', 't') ?? 'n';
        cell = { column, value: '', type, style: Number.isInteger(style) && style >= 0 ? style : undefined };
      } else if (nested(local)) depth[local]++;
    },
    close({ uri, local }) {
      if (!SHEET.has(uri)) return;
      if (local === 'row') {
        rows.row(rowNumber, cells);
        cells = [];
      } else if (local === 'c') {
        // A cell without a value holds nothing but a format.
        if (cell !== undefined && cell.value !== '') cells.push(cell);
        cell = undefined;
        if (cells.length > rows.cellsLeft) {
          rows.row(rowNumber, cells);
          cells = [];
        }
      } else if (nested(local)) depth[local] = Math.max(0, depth[local] - 1);
    },
    text(t) {
      if (cell === undefined || cell.value.length >= MAX_CELL_CHARS) return;
      if (depth.v > 0 || (depth.is > 0 && depth.t > 0 && depth.rPh === 0)) cell.value += t;
    },
  });
}

/** How cell formats (by index in `cellXfs`) show numbers, where it changes what a reader sees. */
export interface CellStyles {
  /** Formats that show dates. */
  dates: Set<number>;
  /** Formats that show a number scaled down (`#,##0,` shows thousands): the divisor. */
  scaled: Map<number, number>;
  /** Formats that add a word to a number (`0"A"` shows 2024 as `2024A`): the word. */
  suffixed: Map<number, string>;
}

/** What a number format does to the number it shows: a date, a divisor, a word after it. */
function formatEffect(
  id: number,
  code: string | undefined,
): { date?: true; divisor?: number; suffix?: string } {
  if (isDateFormat(id, code)) return { date: true };
  if (!code) return {};
  const first = code.split(';')[0]!;
  const suffix = /^[#0,.]+\s*"([^"]{1,12})"$/.exec(first)?.[1];
  if (suffix) return { suffix };
  const commas =
    /[#0](,+)(?:\s|_.|\\.|"[^"]*"|\)|$)/.exec(first.replace(/\[[^\]]*\]/g, ''))?.[1]?.length ?? 0;
  return commas > 0 ? { divisor: 1000 ** Math.min(commas, 2) } : {};
}

export function cellStyles(zip: ZipReader): CellStyles {
  const styles: CellStyles = { dates: new Set(), scaled: new Map(), suffixed: new Map() };
  const entry = zip.entry('xl/styles.xml');
  if (!entry) return styles;
  const codes = new Map<number, string>();
  let inCellXfs = false;
  let xf = 0;
  readXml(
    zip,
    entry,
    {
      open(element) {
        if (!SHEET.has(element.uri)) return;
        if (element.local === 'numFmt') {
          const id = Number(element.attribute('', 'numFmtId'));
          codes.set(id, element.attribute('', 'formatCode') ?? '');
        } else if (element.local === 'cellXfs') inCellXfs = true;
        else if (element.local === 'xf' && inCellXfs) {
          const id = Number(element.attribute('', 'numFmtId') ?? 0);
          const effect = formatEffect(id, codes.get(id));
          if (effect.date) styles.dates.add(xf);
          if (effect.divisor) styles.scaled.set(xf, effect.divisor);
          if (effect.suffix) styles.suffixed.set(xf, effect.suffix);
          xf++;
        }
      },
      close({ uri, local }) {
        if (SHEET.has(uri) && local === 'cellXfs') inCellXfs = false;
      },
      text: ignore,
    },
    MAX_PART_BYTES,
  );
  return styles;
}

/**
 * A cell as a typed value, as its format shows it: dates where the format shows one, a number scaled
 * as the format scales it (the sheet's units note speaks of what is shown), a whole number with the
 * format's word as text (`2024F`); text, or null.
 */
function typedCell(c: XlsxCell, strings: string[], styles: CellStyles): GridCell {
  if (c.type === 'n') {
    const value = c.value.trim();
    const n = Number(value);
    if (value === '' || !Number.isFinite(n)) return null;
    if (c.style === undefined) return n;
    if (styles.dates.has(c.style)) {
      const date = excelSerialDate(n);
      return date ? { date } : n;
    }
    const suffix = styles.suffixed.get(c.style);
    if (suffix && Number.isInteger(n)) return `${n}${suffix}`;
    const divisor = styles.scaled.get(c.style);
    return divisor ? n / divisor : n;
  }
  if (c.type === 'd') {
    const date = c.value.trim().slice(0, 10);
    return /^\d{4}-\d{2}-\d{2}$/.test(date) ? { date } : null;
  }
  if (c.type === 'e') return null;
  return cellText(c.type, c.value, strings);
}

interface SheetSinks {
  out: SheetText;
  grids: GridCollector | undefined;
  styles: CellStyles;
}

/** One worksheet as text (a blank line where rows are missing or empty) and, if asked, as a typed grid. */
function readSheet(zip: ZipReader, path: string, strings: string[], sinks: SheetSinks): void {
  const { out, grids, styles } = sinks;
  let last = 0;
  readSheetRows(zip, path, {
    row(number, cells) {
      if (number > last + 1) out.emptyRow();
      last = number;
      const texts: { column: number; text: string }[] = [];
      for (const c of cells) {
        const text = cellText(c.type, c.value, strings);
        if (text !== '') texts.push({ column: c.column, text });
      }
      grids?.row(
        number - 1,
        cells.map((c) => ({ column: c.column, value: typedCell(c, strings, styles) })),
      );
      out.row(texts);
    },
    get cellsLeft() {
      return out.cellsLeft;
    },
  });
}

/**
 * An Excel workbook as text, sheet by sheet, and as typed grids into `grids` when given; the number of
 * sheets goes to `pages` before reading.
 */
export function readXlsx(
  zip: ZipReader,
  out: SheetText,
  found: { pages: number | null },
  grids?: GridCollector,
): void {
  const sheets = sheetsOf(zip);
  found.pages = sheets.length;
  const strings = sharedStrings(zip, (reason) => out.note(reason));
  const styles = grids
    ? cellStyles(zip)
    : { dates: new Set<number>(), scaled: new Map(), suffixed: new Map() };
  for (const sheet of sheets) {
    out.sheet(sheet.name);
    grids?.sheet(sheet.name);
    readSheet(zip, sheet.path, strings, { out, grids, styles });
  }
}
