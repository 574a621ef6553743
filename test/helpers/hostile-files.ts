import { deflateRawSync, deflateSync } from 'node:zlib';
import { strToU8, type Zippable, zipSync } from 'fflate';
import { docxFile, pdfFile } from '../../db/seeds/office-files.ts';

// Files built to cost a parser: each is a valid file of its kind (an Office file has its
// [Content_Types].xml, relationships and parts, so an upload takes it), made to read, inflate, produce
// or take too much. Some once froze the server or exhausted its memory; the parsers now bound them.

const HEAD = '<?xml version="1.0" encoding="UTF-8" standalone="yes"?>\n';
const W = 'http://schemas.openxmlformats.org/wordprocessingml/2006/main';
const S = 'http://schemas.openxmlformats.org/spreadsheetml/2006/main';
const P = 'http://schemas.openxmlformats.org/presentationml/2006/main';
const A = 'http://schemas.openxmlformats.org/drawingml/2006/main';
const R = 'http://schemas.openxmlformats.org/officeDocument/2006/relationships';
const PKG = 'http://schemas.openxmlformats.org/package/2006/relationships';
const OFFICE = 'application/vnd.openxmlformats-officedocument';
const ODS_TYPE = 'application/vnd.oasis.opendocument.spreadsheet';

type Parts = Record<string, string | Uint8Array>;

function zip(files: Parts): Buffer {
  const entries: Zippable = {};
  for (const [name, body] of Object.entries(files))
    entries[name] = [typeof body === 'string' ? strToU8(body) : body, { mtime: new Date('2026-01-01') }];
  return Buffer.from(zipSync(entries, { level: 6 }));
}

function rels(list: [id: string, type: string, target: string][]): string {
  const items = list.map(
    ([id, type, target]) => `<Relationship Id="${id}" Type="${R}/${type}" Target="${target}"/>`,
  );
  return `${HEAD}<Relationships xmlns="${PKG}">${items.join('')}</Relationships>`;
}

function contentTypes(parts: Record<string, string>): string {
  return (
    `${HEAD}<Types xmlns="http://schemas.openxmlformats.org/package/2006/content-types">` +
    '<Default Extension="rels" ContentType="application/vnd.openxmlformats-package.relationships+xml"/>' +
    '<Default Extension="xml" ContentType="application/xml"/>' +
    Object.entries(parts)
      .map(([part, type]) => `<Override PartName="${part}" ContentType="${OFFICE}.${type}"/>`)
      .join('') +
    '</Types>'
  );
}

/** The parts of a Word document whose body is given; `document` replaces word/document.xml whole. */
function docxParts(body: string, document?: Uint8Array): Parts {
  return {
    '[Content_Types].xml': contentTypes({ '/word/document.xml': 'wordprocessingml.document.main+xml' }),
    '_rels/.rels': rels([['rId1', 'officeDocument', 'word/document.xml']]),
    'word/document.xml':
      document ?? `${HEAD}<w:document xmlns:w="${W}"><w:body>${body}</w:body></w:document>`,
  };
}

/** An Excel workbook of one sheet per `<sheetData>` content given, named Sheet1, Sheet2, … */
function xlsx(sheets: string[]): Buffer {
  const files: Parts = {
    '[Content_Types].xml': contentTypes({
      '/xl/workbook.xml': 'spreadsheetml.sheet.main+xml',
      ...Object.fromEntries(
        sheets.map((_, i) => [`/xl/worksheets/sheet${i + 1}.xml`, 'spreadsheetml.worksheet+xml']),
      ),
    }),
    '_rels/.rels': rels([['rId1', 'officeDocument', 'xl/workbook.xml']]),
    'xl/workbook.xml':
      `${HEAD}<workbook xmlns="${S}" xmlns:r="${R}"><sheets>` +
      sheets.map((_, i) => `<sheet name="Sheet${i + 1}" sheetId="${i + 1}" r:id="rId${i + 1}"/>`).join('') +
      '</sheets></workbook>',
    'xl/_rels/workbook.xml.rels': rels(
      sheets.map((_, i) => [`rId${i + 1}`, 'worksheet', `worksheets/sheet${i + 1}.xml`]),
    ),
  };
  sheets.forEach((data, i) => {
    files[`xl/worksheets/sheet${i + 1}.xml`] =
      `${HEAD}<worksheet xmlns="${S}"><sheetData>${data}</sheetData></worksheet>`;
  });
  return zip(files);
}

/** A PowerPoint deck of one slide whose XML is given whole. */
function pptx(slide: string): Buffer {
  return zip({
    '[Content_Types].xml': contentTypes({
      '/ppt/presentation.xml': 'presentationml.presentation.main+xml',
      '/ppt/slides/slide1.xml': 'presentationml.slide+xml',
    }),
    '_rels/.rels': rels([['rId1', 'officeDocument', 'ppt/presentation.xml']]),
    'ppt/presentation.xml':
      `${HEAD}<p:presentation xmlns:p="${P}" xmlns:r="${R}">` +
      '<p:sldIdLst><p:sldId id="256" r:id="rId1"/></p:sldIdLst></p:presentation>',
    'ppt/_rels/presentation.xml.rels': rels([['rId1', 'slide', 'slides/slide1.xml']]),
    'ppt/slides/slide1.xml': slide,
  });
}

/** An OpenDocument spreadsheet of one table whose rows are given. */
function ods(name: string, rows: string): Buffer {
  return zip({
    mimetype: ODS_TYPE,
    'META-INF/manifest.xml':
      `${HEAD}<manifest:manifest xmlns:manifest="urn:oasis:names:tc:opendocument:xmlns:manifest:1.0" manifest:version="1.2">` +
      `<manifest:file-entry manifest:full-path="/" manifest:media-type="${ODS_TYPE}"/>` +
      '<manifest:file-entry manifest:full-path="content.xml" manifest:media-type="text/xml"/>' +
      '</manifest:manifest>',
    'content.xml':
      `${HEAD}<office:document-content xmlns:office="urn:oasis:names:tc:opendocument:xmlns:office:1.0" ` +
      'xmlns:table="urn:oasis:names:tc:opendocument:xmlns:table:1.0" ' +
      'xmlns:text="urn:oasis:names:tc:opendocument:xmlns:text:1.0" office:version="1.2">' +
      `<office:body><office:spreadsheet><table:table table:name="${name}">${rows}</table:table>` +
      '</office:spreadsheet></office:body></office:document-content>',
  });
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

/** A PDF of the objects given (numbered from 1, the catalog first), with its cross-reference table. */
function pdfOf(objects: (string | Buffer)[]): Buffer {
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

/** A stream object of `content`, FlateDecode-compressed. */
function flateStream(content: string): Buffer {
  const data = deflateSync(content, { level: 9 });
  return Buffer.concat([
    Buffer.from(`<< /Length ${data.length} /Filter /FlateDecode >>\nstream\n`, 'latin1'),
    data,
    Buffer.from('\nendstream', 'latin1'),
  ]);
}

const FONT = '<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica /Encoding /WinAnsiEncoding >>';

/** A PDF of one page per content stream given, objects 1 catalog, 2 pages, 3 font, then contents and pages. */
function pdfOfPages(contents: Buffer[]): Buffer {
  const objects: (string | Buffer)[] = ['<< /Type /Catalog /Pages 2 0 R >>', '', FONT];
  const kids: number[] = [];
  for (const content of contents) {
    objects.push(content);
    objects.push(
      `<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] /Contents ${objects.length} 0 R /Resources << /Font << /F1 3 0 R >> >> >>`,
    );
    kids.push(objects.length);
  }
  objects[1] = `<< /Type /Pages /Kids [${kids.map((k) => `${k} 0 R`).join(' ')}] /Count ${kids.length} >>`;
  return pdfOf(objects);
}

/**
 * An OpenDocument spreadsheet of `rows` rows, each repeated 1,048,576 times, of one cell "x" repeated
 * 16,384 times: billions of cells from a file of a kilobyte.
 */
export function odsRepeatedCells(rows = 60): Buffer {
  const row =
    '<table:table-row table:number-rows-repeated="1048576">' +
    '<table:table-cell table:number-columns-repeated="16384" office:value-type="string"><text:p>x</text:p></table:table-cell>' +
    '</table:table-row>';
  return ods('Pad', row.repeat(rows));
}

/** A Word document whose one paragraph, "deep inside", sits inside `depth` nested content controls. */
export function docxNestedSdt(depth = 200_000): Buffer {
  return zip(
    docxParts(
      `${'<w:sdt><w:sdtContent>'.repeat(depth)}<w:p><w:r><w:t>deep inside</w:t></w:r></w:p>` +
        '</w:sdtContent></w:sdt>'.repeat(depth),
    ),
  );
}

/** A Word document of `paragraphs` paragraphs, each "a", 80,000 spaces, "x". */
export function docxSpaceRuns(paragraphs = 4): Buffer {
  return docxFile(spaceRunParagraphs(paragraphs));
}

/** The paragraphs of docxSpaceRuns. */
export function spaceRunParagraphs(paragraphs = 4): string[] {
  return Array.from({ length: paragraphs }, () => `a${' '.repeat(80_000)}x`);
}

/**
 * A Word document whose body inflates to about `mb` MB of paragraphs while its zip headers (local and
 * central) claim 1,000 bytes for each part larger than that.
 */
export function docxUnderstatedZip(mb = 8): Buffer {
  const paragraph = '<w:p><w:r><w:t>Bombs away, bombs away, bombs away.</w:t></w:r></w:p>';
  const bytes = zip(docxParts(paragraph.repeat(Math.ceil((mb * 1024 * 1024) / paragraph.length))));
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

/**
 * A Word document whose document part inflates to `mb` MB, well-formed XML all the way, and declares
 * `declared` bytes in its zip headers (its true size by default). Its body is one text run that never
 * ends, or with `skipped`, short runs of text in a vocabulary the reader passes over, so that nothing
 * but the inflated bytes grows.
 */
export function docxInflating(mb: number, declared?: number, skipped = false): Buffer {
  const entries: RawEntry[] = Object.entries(docxParts('')).map(([name, body]) => {
    const data = typeof body === 'string' ? strToU8(body) : body;
    return { name, data, method: 0, declaredSize: data.length };
  });
  const document = entries.find((e) => e.name === 'word/document.xml')!;
  const size = mb * 1024 * 1024;
  let body: Buffer;
  if (skipped) {
    const start = `${HEAD}<w:document xmlns:w="${W}" xmlns:x="urn:example:other"><w:body><x:notes>`;
    const run = `<x:t>${'a'.repeat(4_080)}</x:t>`;
    body = Buffer.from(start + run.repeat(Math.ceil((size - start.length) / run.length)));
  } else {
    const start = Buffer.from(`${HEAD}<w:document xmlns:w="${W}"><w:body><w:p><w:r><w:t>`);
    body = Buffer.concat([start, Buffer.alloc(size - start.length, 'a')]);
  }
  document.data = deflateRawSync(body, { level: 9 });
  document.method = 8;
  document.declaredSize = declared ?? body.length;
  return rawZip(entries);
}

/**
 * A Word document whose document part inflates to 100 MB, saying so, in text the reader skips: neither
 * the text nor the markup it holds grows, and only the inflate cap stops it.
 */
export function docxBomb(): Buffer {
  return docxInflating(100, undefined, true);
}

/** A zip of more entries than any document has. */
export function manyEntries(count: number): Buffer {
  const data = strToU8('x');
  return rawZip(
    Array.from({ length: count }, (_, i) => ({ name: `f${i}`, data, method: 0, declaredSize: 1 })),
  );
}

/** A workbook of four sheets, each with a value in its first cell, A1, and its last, XFD1048576. */
export function xlsxCorners(): Buffer {
  const cell = (ref: string, text: string) => `<c r="${ref}" t="inlineStr"><is><t>${text}</t></is></c>`;
  const sheet = `<row r="1">${cell('A1', 'first')}</row><row r="1048576">${cell('XFD1048576', 'last')}</row>`;
  return xlsx([sheet, sheet, sheet, sheet]);
}

/** The column letters of a 0-based column number: 0 → A, 26 → AA. */
function column(n: number): string {
  return n < 26 ? String.fromCharCode(65 + n) : column(Math.floor(n / 26) - 1) + column(n % 26);
}

/** A workbook of one sheet of `rows` × `columns` numeric cells, the digit of each its column's last. */
export function xlsxGrid(rows = 4_000, columns = 100): Buffer {
  const letters = Array.from({ length: columns }, (_, c) => column(c));
  const data: string[] = [];
  for (let r = 1; r <= rows; r++) {
    let row = `<row r="${r}">`;
    for (let c = 0; c < columns; c++) row += `<c r="${letters[c]}${r}"><v>${c % 10}</v></c>`;
    data.push(`${row}</row>`);
  }
  return xlsx([data.join('')]);
}

/** A PowerPoint deck of one slide whose paragraph of `words` words is never closed. */
export function pptxOpenParagraph(words: number): Buffer {
  return pptx(
    `${HEAD}<p:sld xmlns:p="${P}" xmlns:a="${A}"><p:cSld><p:spTree><p:sp><p:txBody>` +
      `<a:p><a:r><a:t>${'word '.repeat(words)}`,
  );
}

/** A PDF of `pages` pages, each the line "Page n". */
export function pdfPages(pages = 6_000): Buffer {
  return pdfFile(Array.from({ length: pages }, (_, i) => [`Page ${i + 1}`]));
}

/** A one-page PDF whose FlateDecode content stream inflates to about `mb` MB of text operators. */
export function pdfFlateBomb(mb = 50): Buffer {
  const line = '(All work and no play) Tj T*\n';
  const content = `BT /F1 11 Tf 14 TL 72 740 Td\n${line.repeat(Math.ceil((mb * 1024 * 1024) / line.length))}ET`;
  return pdfOfPages([flateStream(content)]);
}

/**
 * A PDF of `pages` vector drawings, each page the title "Drawing n" and `segments` line segments, its
 * content FlateDecode-compressed: a small file (about 0.5 KB a page) that is slow to read, as every
 * drawing operator is parsed to find the text among them, and needs memory as it goes.
 */
export function pdfDrawings(pages = 2_000, segments = 8_000): Buffer {
  const drawing = '0 0 m 9 9 l S\n'.repeat(segments);
  return pdfOfPages(
    Array.from({ length: pages }, (_, i) =>
      flateStream(`BT /F1 11 Tf 72 740 Td (Drawing ${i + 1}) Tj ET\n${drawing}`),
    ),
  );
}

/**
 * A one-page PDF that shows a scan: an uncompressed grey image of `mb` MB and the caption "Scan". Its
 * text is quickly read, but the file is large, and a reader holds it whole, so it needs well over `mb`
 * MB whatever the garbage collector does.
 */
export function pdfLargeScan(mb = 100): Buffer {
  const width = 1024;
  const height = mb * 1024;
  const image = Buffer.concat([
    Buffer.from(
      `<< /Type /XObject /Subtype /Image /Width ${width} /Height ${height} /ColorSpace /DeviceGray /BitsPerComponent 8 /Length ${width * height} >>\nstream\n`,
      'latin1',
    ),
    Buffer.alloc(width * height, 0x80),
    Buffer.from('\nendstream', 'latin1'),
  ]);
  const content = flateStream('q 612 0 0 792 0 0 cm /Im1 Do Q\nBT /F1 11 Tf 72 740 Td (Scan) Tj ET');
  return pdfOf([
    '<< /Type /Catalog /Pages 2 0 R >>',
    '<< /Type /Pages /Kids [5 0 R] /Count 1 >>',
    FONT,
    content,
    '<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] /Contents 4 0 R /Resources << /Font << /F1 3 0 R >> /XObject << /Im1 6 0 R >> >> >>',
    image,
  ]);
}

/** A zip of a web page and a Windows program: a zip, but no document of any kind. */
export function zipOfHtmlAndExe(): Buffer {
  return zip({
    'index.html': '<html><script>alert(1)</script></html>',
    'setup.exe': new Uint8Array([0x4d, 0x5a, 0x90, 0, 3, 0, 0, 0]),
  });
}
