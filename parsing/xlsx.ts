import type { ZipReader } from '../core/zip.ts';
import { flat, localName, MAX_CELL_CHARS, type SheetText, Unparseable } from './output.ts';
import { attribute, readXml, type XmlHandler } from './xml.ts';

/** Shared strings past this many characters in all are read as empty cells. */
const MAX_SHARED_CHARS = 16_000_000;
/** The workbook and its relationships are small parts; a larger one is refused. */
const MAX_PART_BYTES = 8 * 1024 * 1024;

const ignore = () => {};

/** The text of each shared string (`<si>`), without phonetic runs, in order. */
function sharedStrings(zip: ZipReader, out: SheetText): string[] {
  const entry = zip.entry('xl/sharedStrings.xml');
  if (!entry) return [];
  const strings: string[] = [];
  let current: string | undefined;
  let inText = 0;
  let phonetic = 0;
  let chars = 0;
  readXml(zip, entry, {
    open(name, _attrs, selfClosing) {
      const local = localName(name);
      if (local === 'si') {
        if (selfClosing) strings.push('');
        else current = '';
      } else if (selfClosing) return;
      else if (local === 't') inText++;
      else if (local === 'rPh') phonetic++;
    },
    close(name) {
      const local = localName(name);
      if (local === 'si' && current !== undefined) {
        chars += current.length;
        if (chars > MAX_SHARED_CHARS)
          out.note('shared strings past 16,000,000 characters were read as empty');
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

/** The workbook's sheets in order, each with the path of its part. */
function sheetsOf(zip: ZipReader): { name: string; path: string }[] {
  const targets = new Map<string, string>();
  const rels = zip.entry('xl/_rels/workbook.xml.rels');
  if (rels) {
    const handler: XmlHandler = {
      open(name, attrs) {
        if (localName(name) !== 'Relationship') return;
        const id = attribute(attrs, 'Id');
        const target = attribute(attrs, 'Target');
        if (id && target) targets.set(id, target);
      },
      close: ignore,
      text: ignore,
    };
    readXml(zip, rels, handler, MAX_PART_BYTES);
  }
  const workbook = zip.entry('xl/workbook.xml');
  if (!workbook) throw new Unparseable('a workbook without xl/workbook.xml');
  const sheets: { name: string; path: string }[] = [];
  readXml(
    zip,
    workbook,
    {
      open(name, attrs) {
        if (localName(name) !== 'sheet') return;
        const target = targets.get(attribute(attrs, 'r:id') ?? '');
        const path = target ? partPath('xl', target) : `xl/worksheets/sheet${sheets.length + 1}.xml`;
        sheets.push({ name: attribute(attrs, 'name') ?? `Sheet ${sheets.length + 1}`, path });
      },
      close: ignore,
      text: ignore,
    },
    MAX_PART_BYTES,
  );
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

/** One worksheet, streamed: a row is written when it closes; gaps are never materialised. */
function readSheet(zip: ZipReader, path: string, strings: string[], out: SheetText): void {
  const entry = zip.entry(path);
  if (!entry) return;
  let rowNumber = 0;
  let cells: { column: number; text: string }[] = [];
  let column = -1;
  let type = '';
  let value: string | undefined;
  const depth: Record<string, number> = { v: 0, is: 0, t: 0, rPh: 0 };
  readXml(zip, entry, {
    open(name, attrs, selfClosing) {
      const local = localName(name);
      if (local === 'row') {
        const r = Number(attribute(attrs, 'r'));
        const number = Number.isInteger(r) && r > rowNumber ? r : rowNumber + 1;
        if (number > rowNumber + 1) out.emptyRow();
        rowNumber = number;
        cells = [];
        column = -1;
        if (selfClosing) out.emptyRow();
      } else if (local === 'c') {
        column = columnOf(attribute(attrs, 'r')) ?? column + 1;
        type = attribute(attrs, 't') ?? 'n';
        value = selfClosing ? undefined : '';
      } else if (!selfClosing && Object.hasOwn(depth, local)) depth[local]!++;
    },
    close(name) {
      const local = localName(name);
      if (local === 'row') {
        out.row(cells);
        cells = [];
      } else if (local === 'c' && value !== undefined) {
        const text = cellText(type, value, strings);
        if (text !== '') cells.push({ column, text });
        if (cells.length > out.cellsLeft) out.row(cells);
        value = undefined;
      } else if (Object.hasOwn(depth, local)) depth[local] = Math.max(0, depth[local]! - 1);
    },
    text(t) {
      if (value === undefined || value.length >= MAX_CELL_CHARS) return;
      if (depth.v! > 0 || (depth.is! > 0 && depth.t! > 0 && depth.rPh === 0)) value += t;
    },
  });
}

/** An Excel workbook as text, sheet by sheet; the number of sheets goes to `pages` before reading. */
export function readXlsx(zip: ZipReader, out: SheetText, found: { pages: number | null }): void {
  const sheets = sheetsOf(zip);
  found.pages = sheets.length;
  const strings = sharedStrings(zip, out);
  for (const sheet of sheets) {
    out.sheet(sheet.name);
    readSheet(zip, sheet.path, strings, out);
  }
}
