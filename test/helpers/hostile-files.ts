import { deflateRawSync, deflateSync } from 'node:zlib';
import { strToU8, type Zippable, zipSync } from 'fflate';
import { pdfFile } from '../../db/seeds/office-files.ts';

// Files that are valid enough to reach a parser and built to make it read, inflate or produce too much.

const CONTENT_TYPES = '<Types xmlns="http://schemas.openxmlformats.org/package/2006/content-types"/>';

function zipOf(files: Record<string, string>): Buffer {
  const entries: Zippable = {};
  for (const [name, text] of Object.entries(files)) entries[name] = strToU8(text);
  return Buffer.from(zipSync(entries, { level: 6 }));
}

interface RawEntry {
  name: string;
  /** The bytes as stored: deflated when `method` is 8. */
  data: Uint8Array;
  method: 0 | 8;
  /** The uncompressed size the headers claim. */
  declaredSize: number;
}

/** A zip written by hand, so that its headers can say what they like about sizes. */
export function rawZip(entries: RawEntry[]): Buffer {
  const locals: Buffer[] = [];
  const centrals: Buffer[] = [];
  let offset = 0;
  for (const e of entries) {
    const name = Buffer.from(e.name);
    const local = Buffer.alloc(30);
    local.writeUInt32LE(0x04034b50, 0);
    local.writeUInt16LE(20, 4);
    local.writeUInt16LE(e.method, 8);
    local.writeUInt32LE(e.data.length, 18);
    local.writeUInt32LE(e.declaredSize, 22);
    local.writeUInt16LE(name.length, 26);
    const central = Buffer.alloc(46);
    central.writeUInt32LE(0x02014b50, 0);
    central.writeUInt16LE(20, 4);
    central.writeUInt16LE(20, 6);
    central.writeUInt16LE(e.method, 10);
    central.writeUInt32LE(e.data.length, 20);
    central.writeUInt32LE(e.declaredSize, 24);
    central.writeUInt16LE(name.length, 28);
    central.writeUInt32LE(offset, 42);
    locals.push(local, name, Buffer.from(e.data));
    centrals.push(central, name);
    offset += local.length + name.length + e.data.length;
  }
  const directory = Buffer.concat(centrals);
  const end = Buffer.alloc(22);
  end.writeUInt32LE(0x06054b50, 0);
  end.writeUInt16LE(Math.min(entries.length, 0xffff), 8);
  end.writeUInt16LE(Math.min(entries.length, 0xffff), 10);
  end.writeUInt32LE(directory.length, 12);
  end.writeUInt32LE(offset, 16);
  return Buffer.concat([...locals, directory, end]);
}

/** A DOCX whose document part claims 1 KB and inflates to 100 MB of NULs. */
export function docxBomb(): Buffer {
  const bomb = deflateRawSync(Buffer.alloc(100 * 1024 * 1024), { level: 9 });
  const types = strToU8(CONTENT_TYPES);
  return rawZip([
    { name: '[Content_Types].xml', data: types, method: 0, declaredSize: types.length },
    { name: 'word/document.xml', data: bomb, method: 8, declaredSize: 1024 },
  ]);
}

/** A zip of more entries than any document has. */
export function manyEntries(count: number): Buffer {
  const data = strToU8('x');
  return rawZip(
    Array.from({ length: count }, (_, i) => ({ name: `f${i}`, data, method: 0, declaredSize: 1 })),
  );
}

/** An ODS of one row of 1,000 cells each repeated 1,000 times, the row repeated 1,000 times. */
export function odsRepeats(): Buffer {
  const cell =
    '<table:table-cell table:number-columns-repeated="1000" office:value-type="float"><text:p>7</text:p></table:table-cell>';
  return zipOf({
    mimetype: 'application/vnd.oasis.opendocument.spreadsheet',
    'content.xml':
      '<office:document-content><office:body><office:spreadsheet><table:table table:name="Big">' +
      `<table:table-row table:number-rows-repeated="1000">${cell.repeat(1000)}</table:table-row>` +
      '</table:table></office:spreadsheet></office:body></office:document-content>',
  });
}

/** A DOCX whose one paragraph sits inside `depth` nested content controls. */
export function docxNested(depth: number): Buffer {
  const body =
    '<w:sdt><w:sdtContent>'.repeat(depth) +
    '<w:p><w:r><w:t>deep inside</w:t></w:r></w:p>' +
    '</w:sdtContent></w:sdt>'.repeat(depth);
  return zipOf({
    '[Content_Types].xml': CONTENT_TYPES,
    'word/document.xml': `<w:document><w:body>${body}</w:body></w:document>`,
  });
}

/** An XLSX of the given sheet data parts (`<row>` elements), one sheet each. */
export function xlsxOfRows(sheets: string[]): Buffer {
  const files: Record<string, string> = {
    '[Content_Types].xml': CONTENT_TYPES,
    'xl/workbook.xml': `<workbook><sheets>${sheets.map((_, i) => `<sheet name="S${i + 1}" sheetId="${i + 1}"/>`).join('')}</sheets></workbook>`,
  };
  sheets.forEach((rows, i) => {
    files[`xl/worksheets/sheet${i + 1}.xml`] = `<worksheet><sheetData>${rows}</sheetData></worksheet>`;
  });
  return zipOf(files);
}

/** Four sheets, each with a cell in A1 and one in XFD1048576, the far corner. */
export function xlsxCorners(): Buffer {
  const cell = (ref: string, text: string) => `<c r="${ref}" t="inlineStr"><is><t>${text}</t></is></c>`;
  const rows = `<row r="1">${cell('A1', 'first')}</row><row r="1048576">${cell('XFD1048576', 'last')}</row>`;
  return xlsxOfRows([rows, rows, rows, rows]);
}

/** An XLSX of `rows` × `columns` numeric cells. */
export function xlsxGrid(rows: number, columns: number): Buffer {
  const row = (r: number) =>
    `<row r="${r}">${Array.from({ length: columns }, (_, c) => `<c><v>${c % 10}</v></c>`).join('')}</row>`;
  return xlsxOfRows([Array.from({ length: rows }, (_, r) => row(r + 1)).join('')]);
}

/** A PPTX of one slide whose paragraph of `words` words is never closed. */
export function pptxOpenParagraph(words: number): Buffer {
  return zipOf({
    '[Content_Types].xml': CONTENT_TYPES,
    'ppt/presentation.xml': '<p:presentation/>',
    'ppt/slides/slide1.xml': `<p:sld><p:txBody><a:p><a:r><a:t>${'word '.repeat(words)}`,
  });
}

/** A PDF of `pages` pages, each one line. */
export function pdfPages(pages: number): Buffer {
  return pdfFile(Array.from({ length: pages }, (_, i) => [`Page ${i + 1}`]));
}

/** A one-page PDF whose content stream is `mb` MB of text operators, FlateDecode-compressed. */
export function pdfFlateBomb(mb: number): Buffer {
  const line = '(All work and no play) Tj T*\n';
  const stream = deflateSync(Buffer.from(line.repeat(Math.ceil((mb * 1024 * 1024) / line.length))), {
    level: 9,
  });
  const objects = [
    '<< /Type /Catalog /Pages 2 0 R >>',
    '<< /Type /Pages /Kids [4 0 R] /Count 1 >>',
    '<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica >>',
    '<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] /Contents 5 0 R /Resources << /Font << /F1 3 0 R >> >> >>',
  ];
  const parts: Buffer[] = [Buffer.from('%PDF-1.4\n')];
  const offsets: number[] = [];
  let length = parts[0]!.length;
  const push = (b: Buffer) => {
    parts.push(b);
    length += b.length;
  };
  objects.forEach((body, i) => {
    offsets.push(length);
    push(Buffer.from(`${i + 1} 0 obj\n${body}\nendobj\n`));
  });
  offsets.push(length);
  push(Buffer.from(`5 0 obj\n<< /Length ${stream.length} /Filter /FlateDecode >>\nstream\n`));
  push(stream);
  push(Buffer.from('\nendstream\nendobj\n'));
  const xref = length;
  let tail = `xref\n0 6\n0000000000 65535 f \n`;
  for (const o of offsets) tail += `${String(o).padStart(10, '0')} 00000 n \n`;
  tail += `trailer\n<< /Size 6 /Root 1 0 R >>\nstartxref\n${xref}\n%%EOF\n`;
  push(Buffer.from(tail));
  return Buffer.concat(parts);
}
