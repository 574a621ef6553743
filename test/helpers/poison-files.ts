import { deflateSync } from 'node:zlib';
import { strToU8, type Zippable, zipSync } from 'fflate';
import { docxFile, pdfFile } from '../../db/seeds/office-files.ts';

// Small files that are costly to parse: each once froze the server or exhausted its memory.

const HEAD = '<?xml version="1.0" encoding="UTF-8" standalone="yes"?>\n';
const W = 'http://schemas.openxmlformats.org/wordprocessingml/2006/main';
const S = 'http://schemas.openxmlformats.org/spreadsheetml/2006/main';
const R = 'http://schemas.openxmlformats.org/officeDocument/2006/relationships';
const PKG = 'http://schemas.openxmlformats.org/package/2006/relationships';

function zip(files: Record<string, string | Uint8Array>): Buffer {
  const entries: Zippable = {};
  for (const [name, body] of Object.entries(files))
    entries[name] = [typeof body === 'string' ? strToU8(body) : body, { mtime: new Date('2026-01-01') }];
  return Buffer.from(zipSync(entries, { level: 6 }));
}

function rels(list: [id: string, type: string, target: string][]): string {
  const items = list.map(
    ([id, type, target]) => `<Relationship Id="${id}" Type="${type}" Target="${target}"/>`,
  );
  return `${HEAD}<Relationships xmlns="${PKG}">${items.join('')}</Relationships>`;
}

const types = (parts: Record<string, string>) =>
  `${HEAD}<Types xmlns="http://schemas.openxmlformats.org/package/2006/content-types">` +
  '<Default Extension="rels" ContentType="application/vnd.openxmlformats-package.relationships+xml"/>' +
  '<Default Extension="xml" ContentType="application/xml"/>' +
  Object.entries(parts)
    .map(([part, type]) => `<Override PartName="${part}" ContentType="${type}"/>`)
    .join('') +
  '</Types>';

/** A Word document whose body XML is given. */
function docx(body: string): Buffer {
  return zip(docxParts(body));
}

function docxParts(body: string): Record<string, string> {
  return {
    '[Content_Types].xml': types({
      '/word/document.xml':
        'application/vnd.openxmlformats-officedocument.wordprocessingml.document.main+xml',
    }),
    '_rels/.rels': rels([['rId1', `${R}/officeDocument`, 'word/document.xml']]),
    'word/document.xml': `${HEAD}<w:document xmlns:w="${W}"><w:body>${body}</w:body></w:document>`,
  };
}

/** An Excel workbook whose sheets' <sheetData> contents are given. */
function xlsx(sheets: (string | Uint8Array)[]): Buffer {
  const files: Record<string, string | Uint8Array> = {
    '[Content_Types].xml': types({
      '/xl/workbook.xml': 'application/vnd.openxmlformats-officedocument.spreadsheetml.sheet.main+xml',
      ...Object.fromEntries(
        sheets.map((_, i) => [
          `/xl/worksheets/sheet${i + 1}.xml`,
          'application/vnd.openxmlformats-officedocument.spreadsheetml.worksheet+xml',
        ]),
      ),
    }),
    '_rels/.rels': rels([['rId1', `${R}/officeDocument`, 'xl/workbook.xml']]),
    'xl/workbook.xml':
      `${HEAD}<workbook xmlns="${S}" xmlns:r="${R}"><sheets>` +
      sheets.map((_, i) => `<sheet name="Sheet${i + 1}" sheetId="${i + 1}" r:id="rId${i + 1}"/>`).join('') +
      '</sheets></workbook>',
    'xl/_rels/workbook.xml.rels': rels(
      sheets.map((_, i) => [`rId${i + 1}`, `${R}/worksheet`, `worksheets/sheet${i + 1}.xml`]),
    ),
  };
  sheets.forEach((data, i) => {
    files[`xl/worksheets/sheet${i + 1}.xml`] =
      typeof data === 'string'
        ? `${HEAD}<worksheet xmlns="${S}"><sheetData>${data}</sheetData></worksheet>`
        : data;
  });
  return zip(files);
}

/** An OpenDocument spreadsheet of rows each repeated a million times, of one cell repeated 16,384 times. */
export function odsRepeatedCells(rows = 60): Buffer {
  const row =
    '<table:table-row table:number-rows-repeated="1048576">' +
    '<table:table-cell table:number-columns-repeated="16384" office:value-type="string"><text:p>x</text:p></table:table-cell>' +
    '</table:table-row>';
  const mime = 'application/vnd.oasis.opendocument.spreadsheet';
  return zip({
    mimetype: mime,
    'META-INF/manifest.xml':
      `${HEAD}<manifest:manifest xmlns:manifest="urn:oasis:names:tc:opendocument:xmlns:manifest:1.0" manifest:version="1.2">` +
      `<manifest:file-entry manifest:full-path="/" manifest:media-type="${mime}"/></manifest:manifest>`,
    'content.xml':
      `${HEAD}<office:document-content xmlns:office="urn:oasis:names:tc:opendocument:xmlns:office:1.0" ` +
      'xmlns:table="urn:oasis:names:tc:opendocument:xmlns:table:1.0" ' +
      'xmlns:text="urn:oasis:names:tc:opendocument:xmlns:text:1.0" office:version="1.2">' +
      `<office:body><office:spreadsheet><table:table table:name="Pad">${row.repeat(rows)}</table:table>` +
      '</office:spreadsheet></office:body></office:document-content>',
  });
}

/** A Word document of content controls nested `depth` deep around one paragraph. */
export function docxNestedSdt(depth = 200_000): Buffer {
  return docx(
    `${'<w:sdt><w:sdtContent>'.repeat(depth)}<w:p><w:r><w:t>deep</w:t></w:r></w:p>` +
      '</w:sdtContent></w:sdt>'.repeat(depth),
  );
}

/** A Word document of paragraphs "a", 80,000 spaces, "x". */
export function docxSpaceRuns(paragraphs = 4): Buffer {
  return docxFile(Array.from({ length: paragraphs }, () => `a${' '.repeat(80_000)}x`));
}

/** A one-page PDF whose FlateDecode content stream inflates to about `mb` MB of text operators. */
export function pdfFlateBomb(mb = 50): Buffer {
  const line = '(dull) Tj T*\n';
  const content = `BT /F1 11 Tf 14 TL 72 740 Td\n${line.repeat(Math.ceil((mb * 1024 * 1024) / line.length))}ET`;
  const stream = deflateSync(content, { level: 9 });
  const objects: (string | Buffer)[] = [
    '<< /Type /Catalog /Pages 2 0 R >>',
    '<< /Type /Pages /Kids [3 0 R] /Count 1 >>',
    '<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] /Contents 4 0 R /Resources << /Font << /F1 5 0 R >> >> >>',
    Buffer.concat([
      Buffer.from(`<< /Length ${stream.length} /Filter /FlateDecode >>\nstream\n`, 'latin1'),
      stream,
      Buffer.from('\nendstream', 'latin1'),
    ]),
    '<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica /Encoding /WinAnsiEncoding >>',
  ];
  const parts: Buffer[] = [Buffer.from('%PDF-1.4\n', 'latin1')];
  let size = parts[0]!.length;
  const offsets: number[] = [];
  objects.forEach((body, i) => {
    offsets.push(size);
    const part = Buffer.concat([
      Buffer.from(`${i + 1} 0 obj\n`, 'latin1'),
      typeof body === 'string' ? Buffer.from(body, 'latin1') : body,
      Buffer.from('\nendobj\n', 'latin1'),
    ]);
    parts.push(part);
    size += part.length;
  });
  let tail = `xref\n0 ${objects.length + 1}\n0000000000 65535 f \n`;
  for (const o of offsets) tail += `${String(o).padStart(10, '0')} 00000 n \n`;
  tail += `trailer\n<< /Size ${objects.length + 1} /Root 1 0 R >>\nstartxref\n${size}\n%%EOF\n`;
  return Buffer.concat([...parts, Buffer.from(tail, 'latin1')]);
}

/** A PDF of `pages` pages. */
export function pdfManyPages(pages = 6000): Buffer {
  return pdfFile(Array.from({ length: pages }, (_, i) => [`Page ${i + 1} of a very long report.`]));
}

/** A workbook of four sheets, each with a value in its first cell, A1, and its last, XFD1048576. */
export function xlsxCorners(): Buffer {
  const sheet =
    '<row r="1"><c r="A1" t="inlineStr"><is><t>first</t></is></c></row>' +
    '<row r="1048576"><c r="XFD1048576" t="inlineStr"><is><t>last</t></is></c></row>';
  return xlsx([sheet, sheet, sheet, sheet]);
}

/** A workbook of one sheet of `cells` numeric cells, 20 to a row. */
export function xlsxManyCells(cells = 400_000): Buffer {
  const cols = 'ABCDEFGHIJKLMNOPQRST';
  const rows: string[] = [];
  for (let r = 1; r <= cells / cols.length; r++) {
    let row = `<row r="${r}">`;
    for (const c of cols) row += `<c r="${c}${r}"><v>${r}</v></c>`;
    rows.push(`${row}</row>`);
  }
  return xlsx([rows.join('')]);
}

/**
 * A Word document whose body inflates to about `mb` MB while its zip headers (local and central) claim
 * 1,000 bytes.
 */
export function docxUnderstatedZip(mb = 64): Buffer {
  const paragraph = '<w:p><w:r><w:t>Bombs away, bombs away, bombs away.</w:t></w:r></w:p>';
  const body = paragraph.repeat(Math.ceil((mb * 1024 * 1024) / paragraph.length));
  const bytes = Buffer.from(zip(docxParts(body)));
  const claimed = 1000;
  // From the end-of-central-directory record: each central entry's size at 24, its local header's at 22.
  const end = bytes.lastIndexOf(Buffer.from([0x50, 0x4b, 0x05, 0x06]));
  let at = bytes.readUInt32LE(end + 16);
  for (let n = bytes.readUInt16LE(end + 10); n > 0; n--) {
    const local = bytes.readUInt32LE(at + 42);
    if (bytes.readUInt32LE(at + 24) > claimed) {
      bytes.writeUInt32LE(claimed, at + 24);
      bytes.writeUInt32LE(claimed, local + 22);
    }
    at += 46 + bytes.readUInt16LE(at + 28) + bytes.readUInt16LE(at + 30) + bytes.readUInt16LE(at + 32);
  }
  return bytes;
}

/** Every poison file, by the name it is uploaded under. */
export function poisonFiles(): Record<string, Buffer> {
  return {
    'repeated-cells.ods': odsRepeatedCells(),
    'nested-controls.docx': docxNestedSdt(),
    'flate-bomb.pdf': pdfFlateBomb(128),
    'corners.xlsx': xlsxCorners(),
    'many-cells.xlsx': xlsxManyCells(),
    'many-pages.pdf': pdfManyPages(),
    'space-runs.docx': docxSpaceRuns(),
    'understated.docx': docxUnderstatedZip(),
  };
}
