import { strToU8, type Zippable, zipSync } from 'fflate';

// Small, valid PDF and Office files built from text, the same bytes every time: the demo seed ships
// them as documents to parse, and tests use them as samples of each format.

const MTIME = new Date('2026-01-01T00:00:00Z');

function zip(files: Record<string, string>): Buffer {
  const entries: Zippable = {};
  for (const [name, text] of Object.entries(files)) entries[name] = [strToU8(text), { mtime: MTIME }];
  return Buffer.from(zipSync(entries, { level: 6 }));
}

function xml(text: string): string {
  return text.replace(/[<>&"]/g, (c) => ({ '<': '&lt;', '>': '&gt;', '&': '&amp;', '"': '&quot;' })[c]!);
}

const XML_HEAD = '<?xml version="1.0" encoding="UTF-8" standalone="yes"?>\n';
const RELS_NS = 'http://schemas.openxmlformats.org/package/2006/relationships';
const OFFICE_DOC_REL = 'http://schemas.openxmlformats.org/officeDocument/2006/relationships/officeDocument';
const OFFICE_REL_NS = 'http://schemas.openxmlformats.org/officeDocument/2006/relationships';

function contentTypes(overrides: Record<string, string>): string {
  const parts = Object.entries(overrides)
    .map(([part, type]) => `<Override PartName="${part}" ContentType="${type}"/>`)
    .join('');
  return (
    `${XML_HEAD}<Types xmlns="http://schemas.openxmlformats.org/package/2006/content-types">` +
    '<Default Extension="rels" ContentType="application/vnd.openxmlformats-package.relationships+xml"/>' +
    `<Default Extension="xml" ContentType="application/xml"/>${parts}</Types>`
  );
}

function rels(targets: { id: string; type: string; target: string }[]): string {
  const list = targets
    .map((r) => `<Relationship Id="${r.id}" Type="${r.type}" Target="${r.target}"/>`)
    .join('');
  return `${XML_HEAD}<Relationships xmlns="${RELS_NS}">${list}</Relationships>`;
}

/**
 * A PDF with one page per entry, each line of an entry a line of Helvetica text. `locked` adds an
 * encryption dictionary that no empty password opens, as a password-protected file has.
 */
export function pdfFile(pages: string[][], options: { locked?: boolean } = {}): Buffer {
  const pdfString = (s: string) => s.replace(/[()\\]/g, (c) => `\\${c}`);
  const objects: string[] = [
    '<< /Type /Catalog /Pages 2 0 R >>',
    '', // the page tree, filled in once the page objects are numbered
    '<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica /Encoding /WinAnsiEncoding >>',
  ];
  const kids: number[] = [];
  for (const lines of pages) {
    const stream = `BT /F1 11 Tf 14 TL 72 740 Td ${lines.map((l) => `(${pdfString(l)}) Tj T*`).join(' ')} ET`;
    objects.push(`<< /Length ${Buffer.byteLength(stream, 'latin1')} >>\nstream\n${stream}\nendstream`);
    const contents = objects.length;
    objects.push(
      `<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] /Contents ${contents} 0 R /Resources << /Font << /F1 3 0 R >> >> >>`,
    );
    kids.push(objects.length);
  }
  objects[1] = `<< /Type /Pages /Kids [${kids.map((k) => `${k} 0 R`).join(' ')}] /Count ${kids.length} >>`;
  let lock = '';
  if (options.locked) {
    const check = 'ab'.repeat(32);
    objects.push(`<< /Filter /Standard /V 1 /R 2 /O <${check}> /U <${check}> /P -4 >>`);
    lock = ` /Encrypt ${objects.length} 0 R /ID [<${'01'.repeat(16)}> <${'01'.repeat(16)}>]`;
  }
  let out = '%PDF-1.4\n';
  const offsets: number[] = [];
  objects.forEach((body, i) => {
    offsets.push(Buffer.byteLength(out, 'latin1'));
    out += `${i + 1} 0 obj\n${body}\nendobj\n`;
  });
  const xref = Buffer.byteLength(out, 'latin1');
  out += `xref\n0 ${objects.length + 1}\n0000000000 65535 f \n`;
  for (const o of offsets) out += `${String(o).padStart(10, '0')} 00000 n \n`;
  out += `trailer\n<< /Size ${objects.length + 1} /Root 1 0 R${lock} >>\nstartxref\n${xref}\n%%EOF\n`;
  return Buffer.from(out, 'latin1');
}

/** A Word document of headings (lines starting "# ") and paragraphs. */
export function docxFile(paragraphs: string[]): Buffer {
  const body = paragraphs
    .map((p) => {
      const heading = p.startsWith('# ');
      const style = heading ? '<w:pPr><w:pStyle w:val="Heading1"/></w:pPr>' : '';
      return `<w:p>${style}<w:r><w:t xml:space="preserve">${xml(heading ? p.slice(2) : p)}</w:t></w:r></w:p>`;
    })
    .join('');
  const main = 'application/vnd.openxmlformats-officedocument.wordprocessingml.document.main+xml';
  return zip({
    '[Content_Types].xml': contentTypes({ '/word/document.xml': main }),
    '_rels/.rels': rels([{ id: 'rId1', type: OFFICE_DOC_REL, target: 'word/document.xml' }]),
    'word/document.xml':
      `${XML_HEAD}<w:document xmlns:w="http://schemas.openxmlformats.org/wordprocessingml/2006/main">` +
      `<w:body>${body}</w:body></w:document>`,
  });
}

export interface Sheet {
  name: string;
  rows: (string | number)[][];
}

function columnName(index: number): string {
  let name = '';
  for (let n = index + 1; n > 0; n = Math.floor((n - 1) / 26))
    name = String.fromCharCode(65 + ((n - 1) % 26)) + name;
  return name;
}

/** An Excel workbook with the given sheets; strings are stored inline, numbers as numbers. */
export function xlsxFile(sheets: Sheet[]): Buffer {
  const files: Record<string, string> = {};
  const overrides: Record<string, string> = {
    '/xl/workbook.xml': 'application/vnd.openxmlformats-officedocument.spreadsheetml.sheet.main+xml',
  };
  const sheetType = 'application/vnd.openxmlformats-officedocument.spreadsheetml.worksheet+xml';
  sheets.forEach((sheet, s) => {
    const rows = sheet.rows
      .map((row, r) => {
        const cells = row
          .map((v, c) => {
            const ref = `${columnName(c)}${r + 1}`;
            return typeof v === 'number'
              ? `<c r="${ref}"><v>${v}</v></c>`
              : `<c r="${ref}" t="inlineStr"><is><t>${xml(v)}</t></is></c>`;
          })
          .join('');
        return `<row r="${r + 1}">${cells}</row>`;
      })
      .join('');
    files[`xl/worksheets/sheet${s + 1}.xml`] =
      `${XML_HEAD}<worksheet xmlns="http://schemas.openxmlformats.org/spreadsheetml/2006/main">` +
      `<sheetData>${rows}</sheetData></worksheet>`;
    overrides[`/xl/worksheets/sheet${s + 1}.xml`] = sheetType;
  });
  const worksheetRel = `${OFFICE_REL_NS}/worksheet`;
  return zip({
    '[Content_Types].xml': contentTypes(overrides),
    '_rels/.rels': rels([{ id: 'rId1', type: OFFICE_DOC_REL, target: 'xl/workbook.xml' }]),
    'xl/workbook.xml':
      `${XML_HEAD}<workbook xmlns="http://schemas.openxmlformats.org/spreadsheetml/2006/main" ` +
      `xmlns:r="${OFFICE_REL_NS}"><sheets>` +
      sheets
        .map((sh, s) => `<sheet name="${xml(sh.name)}" sheetId="${s + 1}" r:id="rId${s + 1}"/>`)
        .join('') +
      '</sheets></workbook>',
    'xl/_rels/workbook.xml.rels': rels(
      sheets.map((_, s) => ({
        id: `rId${s + 1}`,
        type: worksheetRel,
        target: `worksheets/sheet${s + 1}.xml`,
      })),
    ),
    ...files,
  });
}

/** An OpenDocument spreadsheet with the given sheets. */
export function odsFile(sheets: Sheet[]): Buffer {
  const tables = sheets
    .map((sheet) => {
      const rows = sheet.rows
        .map((row) => {
          const cells = row
            .map((v) =>
              typeof v === 'number'
                ? `<table:table-cell office:value-type="float" office:value="${v}"><text:p>${v}</text:p></table:table-cell>`
                : `<table:table-cell office:value-type="string"><text:p>${xml(v)}</text:p></table:table-cell>`,
            )
            .join('');
          return `<table:table-row>${cells}</table:table-row>`;
        })
        .join('');
      return `<table:table table:name="${xml(sheet.name)}">${rows}</table:table>`;
    })
    .join('');
  const mime = 'application/vnd.oasis.opendocument.spreadsheet';
  return zip({
    mimetype: mime,
    'META-INF/manifest.xml':
      `${XML_HEAD}<manifest:manifest xmlns:manifest="urn:oasis:names:tc:opendocument:xmlns:manifest:1.0" manifest:version="1.2">` +
      `<manifest:file-entry manifest:full-path="/" manifest:media-type="${mime}"/>` +
      '<manifest:file-entry manifest:full-path="content.xml" manifest:media-type="text/xml"/></manifest:manifest>',
    'content.xml':
      `${XML_HEAD}<office:document-content xmlns:office="urn:oasis:names:tc:opendocument:xmlns:office:1.0" ` +
      'xmlns:table="urn:oasis:names:tc:opendocument:xmlns:table:1.0" ' +
      'xmlns:text="urn:oasis:names:tc:opendocument:xmlns:text:1.0" office:version="1.2">' +
      `<office:body><office:spreadsheet>${tables}</office:spreadsheet></office:body></office:document-content>`,
  });
}

/** A PowerPoint deck with one slide per entry, each line of an entry a paragraph. */
export function pptxFile(slides: string[][]): Buffer {
  const files: Record<string, string> = {};
  const overrides: Record<string, string> = {
    '/ppt/presentation.xml':
      'application/vnd.openxmlformats-officedocument.presentationml.presentation.main+xml',
  };
  const a = 'http://schemas.openxmlformats.org/drawingml/2006/main';
  const p = 'http://schemas.openxmlformats.org/presentationml/2006/main';
  slides.forEach((lines, i) => {
    const paras = lines.map((l) => `<a:p><a:r><a:t>${xml(l)}</a:t></a:r></a:p>`).join('');
    files[`ppt/slides/slide${i + 1}.xml`] =
      `${XML_HEAD}<p:sld xmlns:a="${a}" xmlns:p="${p}"><p:cSld><p:spTree><p:sp><p:txBody><a:bodyPr/>` +
      `${paras}</p:txBody></p:sp></p:spTree></p:cSld></p:sld>`;
    overrides[`/ppt/slides/slide${i + 1}.xml`] =
      'application/vnd.openxmlformats-officedocument.presentationml.slide+xml';
  });
  return zip({
    '[Content_Types].xml': contentTypes(overrides),
    '_rels/.rels': rels([{ id: 'rId1', type: OFFICE_DOC_REL, target: 'ppt/presentation.xml' }]),
    'ppt/presentation.xml':
      `${XML_HEAD}<p:presentation xmlns:p="${p}" xmlns:r="${OFFICE_REL_NS}"><p:sldIdLst>` +
      slides.map((_, i) => `<p:sldId id="${256 + i}" r:id="rId${i + 1}"/>`).join('') +
      '</p:sldIdLst></p:presentation>',
    'ppt/_rels/presentation.xml.rels': rels(
      slides.map((_, i) => ({
        id: `rId${i + 1}`,
        type: `${OFFICE_REL_NS}/slide`,
        target: `slides/slide${i + 1}.xml`,
      })),
    ),
    ...files,
  });
}
