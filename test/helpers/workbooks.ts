import { strToU8, type Zippable, zipSync } from 'fflate';

// Spreadsheets written deterministically for the extraction corpus: XLSX (inline strings, a date
// format for date cells), ODS and CSV from the same description of sheets.

/**
 * A cell to write: a number, text, a date (`{ date }`, written as a serial with a date format), a number
 * with a format that changes how it shows (`{ n, format }`: `thousands` is `#,##0,`, `A` and `F` add the
 * letter, as `0"A"` shows 2024 as 2024A), or empty. Other formats write the number alone.
 */
export type WriteCell =
  | number
  | string
  | { date: string }
  | { n: number; format: NumberFormat }
  | null
  | undefined;
export type NumberFormat = 'thousands' | 'A' | 'F';
const FORMAT_STYLE: Record<NumberFormat, number> = { thousands: 2, A: 3, F: 4 };
/** A cell for formats that keep no number format (ODS, CSV here): the number alone. */
const plain = (cell: WriteCell) => (cell && typeof cell === 'object' && 'n' in cell ? cell.n : cell);
export interface WriteSheet {
  name: string;
  rows: WriteCell[][];
}

const HEAD = '<?xml version="1.0" encoding="UTF-8" standalone="yes"?>\n';
const S = 'http://schemas.openxmlformats.org/spreadsheetml/2006/main';
const R = 'http://schemas.openxmlformats.org/officeDocument/2006/relationships';
const PKG = 'http://schemas.openxmlformats.org/package/2006/relationships';
const OFFICE = 'application/vnd.openxmlformats-officedocument';
const ODS_TYPE = 'application/vnd.oasis.opendocument.spreadsheet';

const xmlText = (s: string) =>
  s.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;');

function zip(files: Record<string, string>): Buffer {
  const entries: Zippable = {};
  for (const [name, body] of Object.entries(files))
    entries[name] = [strToU8(body), { mtime: new Date('2026-01-01') }];
  return Buffer.from(zipSync(entries, { level: 6 }));
}

export function columnName(index: number): string {
  let name = '';
  for (let n = index + 1; n > 0; n = Math.floor((n - 1) / 26))
    name = String.fromCharCode(65 + ((n - 1) % 26)) + name;
  return name;
}

function serial(date: string): number {
  return (Date.parse(`${date}T00:00:00Z`) - Date.UTC(1899, 11, 30)) / 86_400_000;
}

function xlsxCell(cell: WriteCell, ref: string): string {
  if (cell === null || cell === undefined || cell === '') return '';
  if (typeof cell === 'number') return `<c r="${ref}"><v>${cell}</v></c>`;
  if (typeof cell === 'string') return `<c r="${ref}" t="inlineStr"><is><t>${xmlText(cell)}</t></is></c>`;
  if ('n' in cell) return `<c r="${ref}" s="${FORMAT_STYLE[cell.format]}"><v>${cell.n}</v></c>`;
  return `<c r="${ref}" s="1"><v>${serial(cell.date)}</v></c>`;
}

function sheetXml(sheet: WriteSheet): string {
  const rows = sheet.rows
    .map((row, r) => {
      const cells = row.map((cell, c) => xlsxCell(cell, `${columnName(c)}${r + 1}`)).join('');
      return cells === '' ? '' : `<row r="${r + 1}">${cells}</row>`;
    })
    .join('');
  return `${HEAD}<worksheet xmlns="${S}"><sheetData>${rows}</sheetData></worksheet>`;
}

/** An Excel workbook; date cells use a custom `mmm-yy` format (style 1). */
export function writeXlsx(sheets: WriteSheet[]): Buffer {
  const overrides = [
    `<Override PartName="/xl/workbook.xml" ContentType="${OFFICE}.spreadsheetml.sheet.main+xml"/>`,
    `<Override PartName="/xl/styles.xml" ContentType="${OFFICE}.spreadsheetml.styles+xml"/>`,
    ...sheets.map(
      (_, i) =>
        `<Override PartName="/xl/worksheets/sheet${i + 1}.xml" ContentType="${OFFICE}.spreadsheetml.worksheet+xml"/>`,
    ),
  ];
  const rel = (id: string, type: string, target: string) =>
    `<Relationship Id="${id}" Type="${R}/${type}" Target="${target}"/>`;
  const files: Record<string, string> = {
    '[Content_Types].xml':
      `${HEAD}<Types xmlns="http://schemas.openxmlformats.org/package/2006/content-types">` +
      '<Default Extension="rels" ContentType="application/vnd.openxmlformats-package.relationships+xml"/>' +
      `<Default Extension="xml" ContentType="application/xml"/>${overrides.join('')}</Types>`,
    '_rels/.rels': `${HEAD}<Relationships xmlns="${PKG}">${rel('rId1', 'officeDocument', 'xl/workbook.xml')}</Relationships>`,
    'xl/workbook.xml':
      `${HEAD}<workbook xmlns="${S}" xmlns:r="${R}"><sheets>` +
      sheets
        .map((s, i) => `<sheet name="${xmlText(s.name)}" sheetId="${i + 1}" r:id="rId${i + 1}"/>`)
        .join('') +
      '</sheets></workbook>',
    'xl/_rels/workbook.xml.rels':
      `${HEAD}<Relationships xmlns="${PKG}">` +
      sheets.map((_, i) => rel(`rId${i + 1}`, 'worksheet', `worksheets/sheet${i + 1}.xml`)).join('') +
      rel(`rId${sheets.length + 1}`, 'styles', 'styles.xml') +
      '</Relationships>',
    'xl/styles.xml':
      `${HEAD}<styleSheet xmlns="${S}"><numFmts count="4"><numFmt numFmtId="164" formatCode="mmm\\-yy"/>` +
      '<numFmt numFmtId="165" formatCode="#,##0,;(#,##0,)"/><numFmt numFmtId="166" formatCode="0&quot;A&quot;"/>' +
      '<numFmt numFmtId="167" formatCode="0&quot;F&quot;"/></numFmts><cellXfs count="5"><xf numFmtId="0"/>' +
      '<xf numFmtId="164" applyNumberFormat="1"/><xf numFmtId="165" applyNumberFormat="1"/>' +
      '<xf numFmtId="166" applyNumberFormat="1"/><xf numFmtId="167" applyNumberFormat="1"/></cellXfs></styleSheet>',
  };
  sheets.forEach((sheet, i) => {
    files[`xl/worksheets/sheet${i + 1}.xml`] = sheetXml(sheet);
  });
  return zip(files);
}

function odsCell(written: WriteCell): string {
  const cell = plain(written);
  if (cell === null || cell === undefined || cell === '') return '<table:table-cell/>';
  if (typeof cell === 'number')
    return `<table:table-cell office:value-type="float" office:value="${cell}"><text:p>${cell}</text:p></table:table-cell>`;
  if (typeof cell === 'string')
    return `<table:table-cell office:value-type="string"><text:p>${xmlText(cell)}</text:p></table:table-cell>`;
  return `<table:table-cell office:value-type="date" office:date-value="${cell.date}"><text:p>${cell.date}</text:p></table:table-cell>`;
}

/** An OpenDocument spreadsheet of the sheets. */
export function writeOds(sheets: WriteSheet[]): Buffer {
  const tables = sheets
    .map(
      (sheet) =>
        `<table:table table:name="${xmlText(sheet.name)}">` +
        sheet.rows
          .map(
            (row) =>
              `<table:table-row>${row.map(odsCell).join('') || '<table:table-cell/>'}</table:table-row>`,
          )
          .join('') +
        '</table:table>',
    )
    .join('');
  return zip({
    mimetype: ODS_TYPE,
    'META-INF/manifest.xml':
      `${HEAD}<manifest:manifest xmlns:manifest="urn:oasis:names:tc:opendocument:xmlns:manifest:1.0" manifest:version="1.2">` +
      `<manifest:file-entry manifest:full-path="/" manifest:media-type="${ODS_TYPE}"/>` +
      '<manifest:file-entry manifest:full-path="content.xml" manifest:media-type="text/xml"/></manifest:manifest>',
    'content.xml':
      `${HEAD}<office:document-content xmlns:office="urn:oasis:names:tc:opendocument:xmlns:office:1.0" ` +
      'xmlns:table="urn:oasis:names:tc:opendocument:xmlns:table:1.0" ' +
      'xmlns:text="urn:oasis:names:tc:opendocument:xmlns:text:1.0" office:version="1.2">' +
      `<office:body><office:spreadsheet>${tables}</office:spreadsheet></office:body></office:document-content>`,
  });
}

/** One sheet as CSV: text quoted when it needs to be, dates as YYYY-MM-DD. */
export function writeCsv(sheet: WriteSheet): Buffer {
  const field = (written: WriteCell) => {
    const cell = plain(written);
    if (cell === null || cell === undefined) return '';
    if (typeof cell === 'object') return cell.date;
    const text = String(cell);
    return /[",\n]/.test(text) ? `"${text.replace(/"/g, '""')}"` : text;
  };
  return Buffer.from(`${sheet.rows.map((row) => row.map(field).join(',')).join('\n')}\n`);
}
