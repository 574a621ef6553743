import { expect } from 'chai';
import { strToU8, type Zippable, zipSync } from 'fflate';
import { type Extraction, extractText } from '../parsing/extract.ts';

// Valid Office files that name their namespaces with prefixes other than the usual ones (or none),
// and store parts in UTF-16: what a reader must match is the namespace, never the prefix.

const W = 'http://schemas.openxmlformats.org/wordprocessingml/2006/main';
const S = 'http://schemas.openxmlformats.org/spreadsheetml/2006/main';
const S_STRICT = 'http://purl.oclc.org/ooxml/spreadsheetml/main';
const R_STRICT = 'http://purl.oclc.org/ooxml/officeDocument/relationships';
const P = 'http://schemas.openxmlformats.org/presentationml/2006/main';
const A = 'http://schemas.openxmlformats.org/drawingml/2006/main';
const PKG = 'http://schemas.openxmlformats.org/package/2006/relationships';
const TYPES = 'http://schemas.openxmlformats.org/package/2006/content-types';
const ODS_TYPE = 'application/vnd.oasis.opendocument.spreadsheet';
const HEAD = '<?xml version="1.0" encoding="UTF-8" standalone="yes"?>';

/** UTF-16 little-endian with a byte-order mark. */
const utf16le = (xml: string) => Buffer.from(`\ufeff${xml}`, 'utf16le');
/** UTF-16 big-endian without a byte-order mark: only the declaration's `<?` says so. */
const utf16be = (xml: string) => Buffer.from(xml, 'utf16le').swap16();

function zip(parts: Record<string, string | Uint8Array>): Buffer {
  const entries: Zippable = {};
  for (const [name, body] of Object.entries(parts))
    entries[name] = typeof body === 'string' ? strToU8(body) : body;
  return Buffer.from(zipSync(entries, { level: 6 }));
}

function contentTypes(overrides: Record<string, string>): string {
  const items = Object.entries(overrides).map(
    ([part, type]) =>
      `<Override PartName="${part}" ContentType="application/vnd.openxmlformats-officedocument.${type}"/>`,
  );
  return `${HEAD}<Types xmlns="${TYPES}"><Default Extension="xml" ContentType="application/xml"/>${items.join('')}</Types>`;
}

async function extract(content: Buffer, filename: string): Promise<Extraction> {
  return extractText({ content, content_type: 'application/octet-stream', filename });
}

describe('Office files whatever their namespace prefixes and encodings', () => {
  it('reads a Word document written with other prefixes, and skips elements of other namespaces', async () => {
    const document =
      `${HEAD}<doc:document xmlns:doc="${W}" xmlns:w="urn:not-word"><doc:body>` +
      '<doc:p><doc:r><doc:t>Revenue grew</doc:t><doc:tab/><doc:t>12 percent.</doc:t></doc:r></doc:p>' +
      '<w:p><w:r><w:t>not Word text</w:t></w:r></w:p>' +
      `<p xmlns="${W}"><r><t>A default namespace</t><br/><t>on two lines.</t></r></p>` +
      '</doc:body></doc:document>';
    const file = zip({
      '[Content_Types].xml': contentTypes({ '/word/document.xml': 'wordprocessingml.document.main+xml' }),
      'word/document.xml': document,
    });
    expect(await extract(file, 'memo.docx')).to.deep.equal({
      state: 'completed',
      text: 'Revenue grew\t12 percent.\n\nA default namespace\non two lines.',
      format: 'docx',
      pages: null,
    });
  });

  it('reads a PowerPoint slide stored in UTF-16 with other prefixes', async () => {
    const slide =
      `<?xml version="1.0" encoding="UTF-16" standalone="yes"?><deck:sld xmlns:deck="${P}" xmlns:d="${A}">` +
      '<deck:cSld><deck:spTree><deck:sp><deck:txBody>' +
      '<d:p><d:r><d:t>Margin held at 71 % — ünchanged</d:t></d:r></d:p><d:p><d:r><d:t>Next: €2m round</d:t></d:r></d:p>' +
      '</deck:txBody></deck:sp></deck:spTree></deck:cSld></deck:sld>';
    const file = zip({
      '[Content_Types].xml': contentTypes({
        '/ppt/presentation.xml': 'presentationml.presentation.main+xml',
        '/ppt/slides/slide1.xml': 'presentationml.slide+xml',
      }),
      'ppt/presentation.xml': `${HEAD}<p:presentation xmlns:p="${P}"/>`,
      'ppt/slides/slide1.xml': utf16le(slide),
    });
    expect(await extract(file, 'deck.pptx')).to.deep.include({
      state: 'completed',
      text: 'Slide 1\nMargin held at 71 % — ünchanged\nNext: €2m round',
      pages: 1,
    });
  });

  it('reads an OpenDocument spreadsheet in UTF-16 (big-endian, no byte-order mark) with other prefixes', async () => {
    const content =
      '<?xml version="1.0" encoding="UTF-16"?>' +
      '<o:document-content xmlns:o="urn:oasis:names:tc:opendocument:xmlns:office:1.0" ' +
      'xmlns:tbl="urn:oasis:names:tc:opendocument:xmlns:table:1.0" ' +
      'xmlns:txt="urn:oasis:names:tc:opendocument:xmlns:text:1.0"><o:body><o:spreadsheet>' +
      '<tbl:table tbl:name="Zahlen"><tbl:table-row><tbl:table-cell><txt:p>Monat</txt:p></tbl:table-cell>' +
      '<tbl:table-cell><txt:p>Umsatz</txt:p></tbl:table-cell></tbl:table-row>' +
      '<tbl:table-row><tbl:table-cell><txt:p>Jänner</txt:p></tbl:table-cell>' +
      '<tbl:table-cell o:value-type="float" o:value="1200.5"><txt:p>1.200,5</txt:p></tbl:table-cell></tbl:table-row>' +
      '</tbl:table></o:spreadsheet></o:body></o:document-content>';
    const file = zip({ mimetype: ODS_TYPE, 'content.xml': utf16be(content) });
    expect(await extract(file, 'zahlen.ods')).to.deep.include({
      state: 'completed',
      text: 'Sheet: Zahlen\nMonat\tUmsatz\nJänner\t1.200,5',
      pages: 1,
    });
  });

  it('reads a Strict Open XML workbook written with other prefixes', async () => {
    const file = zip({
      '[Content_Types].xml': contentTypes({ '/xl/workbook.xml': 'spreadsheetml.sheet.main+xml' }),
      'xl/workbook.xml':
        `${HEAD}<x:workbook xmlns:x="${S_STRICT}" xmlns:rel="${R_STRICT}"><x:sheets>` +
        '<x:sheet name="KPIs" sheetId="1" rel:id="rId7"/></x:sheets></x:workbook>',
      'xl/_rels/workbook.xml.rels':
        `${HEAD}<Relationships xmlns="${PKG}"><Relationship Id="rId7" Type="${R_STRICT}/worksheet" ` +
        'Target="worksheets/kpis.xml"/></Relationships>',
      'xl/worksheets/kpis.xml':
        `${HEAD}<x:worksheet xmlns:x="${S_STRICT}"><x:sheetData><x:row r="1">` +
        '<x:c r="A1" t="inlineStr"><x:is><x:t>ARR</x:t></x:is></x:c><x:c r="B1"><x:v>4200</x:v></x:c>' +
        `</x:row><x:row r="2"><ignored:c xmlns:ignored="${S}x" r="A2"><ignored:v>9</ignored:v></ignored:c>` +
        '</x:row></x:sheetData></x:worksheet>',
    });
    expect(await extract(file, 'kpis.xlsx')).to.deep.include({
      state: 'completed',
      text: 'Sheet: KPIs\nARR\t4200',
      pages: 1,
    });
  });
});
