import { expect } from 'chai';
import { strToU8, zipSync } from 'fflate';
import { ZipError, ZipReader } from '../core/zip.ts';
import { type Extraction, extractText, tidy } from '../parsing/extract.ts';
import { XmlError, XmlReader } from '../parsing/xml.ts';
import {
  docxBomb,
  docxInflating,
  docxNestedSdt,
  manyEntries,
  odsRepeatedCells,
  pdfFlateBomb,
  pdfPages,
  pptxOpenParagraph,
  rawZip,
  xlsxCorners,
  xlsxGrid,
} from './helpers/hostile-files.ts';

/** Reads a file's document part: the ZipError that stopped it, and how many bytes reached the reader. */
function refusalOf(file: Buffer): { error: ZipError; delivered: number } {
  const reader = new ZipReader(file);
  let delivered = 0;
  try {
    reader.read(reader.entry('word/document.xml')!, (chunk) => {
      delivered += chunk.length;
    });
  } catch (err) {
    if (err instanceof ZipError) return { error: err, delivered };
    throw err;
  }
  throw new Error('the document part was read whole');
}

/** Parses a file and how long it took. */
async function parse(content: Buffer, filename: string): Promise<{ result: Extraction; ms: number }> {
  const started = performance.now();
  const result = await extractText({ content, content_type: 'application/octet-stream', filename });
  return { result, ms: performance.now() - started };
}

function completed(result: Extraction) {
  if (result.state !== 'completed') throw new Error(`not completed: ${JSON.stringify(result)}`);
  return result;
}

describe('parsers stay bounded on hostile files', function () {
  this.timeout(120_000);

  it('cuts an ODS of rows of 16,384 cells, each row repeated a million times, at 200,000 cells', async () => {
    const { result, ms } = await parse(odsRepeatedCells(), 'big.ods');
    const done = completed(result);
    expect(done.cut).to.equal('only the first 200,000 cells of the spreadsheet were read');
    expect(done.text.match(/x/g)).to.have.length(200_000);
    expect(ms).to.be.below(5_000);
  });

  it('reads a DOCX paragraph inside 4,000 nested content controls', async () => {
    const { result } = await parse(docxNestedSdt(4_000), 'deep.docx');
    expect(completed(result)).to.deep.include({ text: 'deep inside', pages: null });
    expect(result).to.not.have.property('cut');
  });

  it('refuses a DOCX nesting elements more than 10,000 deep, without holding them', async () => {
    const { result, ms } = await parse(docxNestedSdt(200_000), 'deep.docx');
    expect(result).to.deep.equal({
      state: 'not-parseable',
      reason: 'word/document.xml nests elements more than 10,000 deep',
    });
    expect(ms).to.be.below(5_000);
  });

  it('reads an XLSX with cells in A1 and XFD1048576 on four sheets without materialising the gap', async () => {
    const { result, ms } = await parse(xlsxCorners(), 'corners.xlsx');
    const done = completed(result);
    expect(done.pages).to.equal(4);
    expect(done.text.length).to.be.below(500);
    const sheet = `first\n\n${'\t'.repeat(64)}last`;
    expect(done.text).to.equal([1, 2, 3, 4].map((n) => `Sheet: Sheet${n}\n${sheet}`).join('\n\n'));
    expect(ms).to.be.below(2_000);
  });

  it('cuts an XLSX of 400,000 cells at 200,000 cells', async () => {
    const { result, ms } = await parse(xlsxGrid(4_000, 100), 'grid.xlsx');
    const done = completed(result);
    expect(done.cut).to.equal('only the first 200,000 cells of the spreadsheet were read');
    expect(done.text.split('\n').length).to.equal(1 + 2_000);
    expect(ms).to.be.below(10_000);
  });

  it('refuses an entry inflating to 100 MB, as it declares, once 64 MB are out', async () => {
    const { result, ms } = await parse(docxBomb(), 'bomb.docx');
    expect(result).to.deep.equal({
      state: 'not-parseable',
      reason: 'word/document.xml inflates beyond 64 MB',
    });
    expect(ms).to.be.below(10_000);
  });

  it('refuses a run of text longer than 8 MB before it is held whole, not waiting for the inflate cap', async () => {
    const { result, ms } = await parse(docxInflating(100), 'one-run.docx');
    expect(result).to.deep.equal({
      state: 'not-parseable',
      reason: 'word/document.xml has a run of text longer than 8 MB',
    });
    expect(ms).to.be.below(10_000);
  });

  it('refuses at once an entry declared as 10 bytes that inflates to 50 MB, inflating none of it', async () => {
    const crafted = docxInflating(50, 10);
    const refusal = refusalOf(crafted);
    expect(refusal.error.message).to.equal(
      'word/document.xml inflates beyond the 10 bytes it declares (a crafted zip)',
    );
    // Its 50 KB of compressed data cannot hold only 10 bytes: refused from the sizes alone.
    expect(refusal.error.inflated).to.equal(0);
    expect(refusal.delivered).to.equal(0);
    const { result, ms } = await parse(crafted, 'crafted.docx');
    expect(result).to.deep.equal({
      state: 'not-parseable',
      reason: 'word/document.xml inflates beyond the 10 bytes it declares (a crafted zip)',
    });
    expect(ms).to.be.below(1_000);
  });

  it('stops an entry declaring 200 KB, no less than its compressed size, within 4.2 MB of inflating 50 MB', () => {
    const refusal = refusalOf(docxInflating(50, 200 * 1024));
    expect(refusal.error.message).to.equal(
      'word/document.xml inflates beyond the 204,800 bytes it declares (a crafted zip)',
    );
    expect(refusal.delivered).to.be.at.most(200 * 1024);
    // One 4 KB piece of input inflates to 4.2 MB at most: the output passes the bound by no more.
    expect(refusal.error.inflated)
      .to.be.above(200 * 1024)
      .and.at.most(200 * 1024 + 4096 * 1032);
  });

  it('refuses a zip of more than 10,000 entries from its directory alone', async () => {
    const { result, ms } = await parse(manyEntries(10_001), 'many.docx');
    expect(result).to.deep.equal({
      state: 'not-parseable',
      reason: 'a zip archive of more than 10,000 entries',
    });
    expect(ms).to.be.below(2_000);
  });

  it('cuts a PPTX paragraph that never closes at 1,000,000 characters', async () => {
    const { result, ms } = await parse(pptxOpenParagraph(400_000), 'open.pptx');
    const done = completed(result);
    expect(done.cut).to.equal('the text was cut at 1,000,000 characters');
    expect(done.text).to.match(/^Slide 1\nword word /);
    expect(done.text.length).to.be.at.most(1_000_000);
    expect(ms).to.be.below(5_000);
  });

  it('reads the first 2,000 pages of a 6,000-page PDF and reports all 6,000', async () => {
    const { result, ms } = await parse(pdfPages(6_000), 'long.pdf');
    const done = completed(result);
    expect(done.pages).to.equal(6_000);
    expect(done.cut).to.equal('only the first 2,000 of 6,000 pages were read');
    expect(done.text).to.match(/\n\nPage 2000$/);
    expect(ms).to.be.below(60_000);
  });

  it('refuses a PDF whose FlateDecode stream inflates to 50 MB of text', async () => {
    const { result, ms } = await parse(pdfFlateBomb(50), 'bomb.pdf');
    expect(result).to.deep.equal({
      state: 'not-parseable',
      reason: 'a PDF with a compressed stream that inflates beyond 32 MB',
    });
    expect(ms).to.be.below(10_000);
  });

  it('cuts plain text at 1,000,000 characters and says so', async () => {
    const { result } = await parse(Buffer.from('abcd'.repeat(300_000)), 'long.txt');
    const done = completed(result);
    expect(done.text.length).to.equal(1_000_000);
    expect(done.cut).to.equal('the text was cut at 1,000,000 characters');
  });
});

describe('tidy and the zip reader', () => {
  it('cleans a line of 80,000 spaces between two letters, and trailing runs, in linear time', () => {
    const text = `a${' '.repeat(80_000)}x\n${'b'}${' \t'.repeat(40_000)}\r\n\n\n\nc  `;
    const started = performance.now();
    const clean = tidy(text);
    const ms = performance.now() - started;
    expect(clean).to.equal(`a${' '.repeat(80_000)}x\nb\n\nc`);
    expect(ms).to.be.below(200);
  });

  it('refuses a stored entry over the cap, and entries over the archive total', () => {
    const zip = Buffer.from(zipSync({ a: new Uint8Array(3000), b: new Uint8Array(3000) }, { level: 0 }));
    const reader = new ZipReader(zip, { maxEntries: 10, maxEntryBytes: 2000, maxTotalBytes: 5000 });
    expect(() => reader.readAll(reader.entry('a')!)).to.throw(ZipError, 'a inflates beyond');
    const generous = new ZipReader(zip, { maxEntries: 10, maxEntryBytes: 4000, maxTotalBytes: 5000 });
    expect(generous.readAll(generous.entry('a')!).length).to.equal(3000);
    expect(() => generous.readAll(generous.entry('b')!)).to.throw(ZipError, 'in total');
  });

  it('inflates an entry chunk by chunk and stops as soon as the output passes the cap', () => {
    // Digits from a linear congruential generator: about 2:1, so each piece of input inflates a little.
    let seed = 1;
    const digits = new Uint8Array(4 * 1024 * 1024).map(() => {
      seed = (seed * 1103515245 + 12345) % 2 ** 31;
      return 48 + (seed % 10);
    });
    const zip = Buffer.from(zipSync({ big: digits }, { level: 9 }));
    const reader = new ZipReader(zip, { maxEntries: 10, maxEntryBytes: 1024 * 1024, maxTotalBytes: 1 << 30 });
    let seen = 0;
    let chunks = 0;
    expect(() =>
      reader.read(reader.entry('big')!, (c) => {
        seen += c.length;
        chunks++;
      }),
    ).to.throw(ZipError, 'inflates beyond');
    expect(chunks).to.be.above(1);
    expect(seen).to.be.at.most(1024 * 1024);
  });

  it('refuses a stored entry holding more than it declares', () => {
    const zip = rawZip([{ name: 'a', data: new Uint8Array(5000), method: 0, declaredSize: 10 }]);
    const reader = new ZipReader(zip);
    expect(() => reader.readAll(reader.entry('a')!)).to.throw(
      ZipError,
      'a inflates beyond the 10 bytes it declares (a crafted zip)',
    );
  });

  it('refuses a zip64 archive and a damaged directory with a reason', () => {
    const one = rawZip([{ name: 'a', data: strToU8('x'), method: 0, declaredSize: 1 }]);
    const zip64 = Buffer.from(one);
    zip64.writeUInt16LE(0xffff, zip64.length - 12);
    expect(() => new ZipReader(zip64)).to.throw(ZipError, 'zip64');
    const cut = one.subarray(0, one.length - 5);
    expect(() => new ZipReader(cut)).to.throw(ZipError, 'not a zip archive');
  });
});

describe('the streaming XML reader', () => {
  /** The events of a document fed in pieces of `size` characters. */
  function events(xml: string, size: number): string[] {
    const seen: string[] = [];
    const reader = new XmlReader({
      open: (e) => seen.push(`<${e.uri}|${e.local} x=${e.attribute('', 'x')}${e.selfClosing ? '/' : ''}>`),
      close: (e) => seen.push(`</${e.uri}|${e.local}>`),
      text: (t) => {
        if (seen.length > 0 && seen[seen.length - 1]!.startsWith('#')) seen[seen.length - 1] += t;
        else seen.push(`#${t}`);
      },
    });
    for (let at = 0; at < xml.length; at += size) reader.write(xml.slice(at, at + size));
    reader.end();
    return seen;
  }

  it('reports the same elements and text whether fed whole or a character at a time', () => {
    const xml =
      '<?xml version="1.0"?><a x="1 > 0" y=\'"\'><!-- <b> --><b/>Tom &amp; Jerry &#x263A;' +
      '<![CDATA[<raw> & ]]></a>';
    const whole = events(xml, xml.length);
    expect(whole).to.deep.equal([
      '<|a x=1 > 0>',
      '<|b x=undefined/>',
      '</|b>',
      '#Tom & Jerry \u263a<raw> & ',
      '</|a>',
    ]);
    expect(events(xml, 1)).to.deep.equal(whole);
  });

  it('names elements and attributes by namespace, whatever their prefixes', () => {
    const xml =
      '<p:a xmlns:p="urn:one" xmlns="urn:two"><q:b xmlns:q="urn:one" q:x="1"/><c x="2"><p:d xmlns:p="urn:three"/></c>' +
      '<p:e p:x="3"/></p:a>';
    expect(events(xml, 7)).to.deep.equal([
      '<urn:one|a x=undefined>',
      '<urn:one|b x=undefined/>',
      '</urn:one|b>',
      '<urn:two|c x=2>',
      '<urn:three|d x=undefined/>',
      '</urn:three|d>',
      '</urn:two|c>',
      '<urn:one|e x=undefined/>',
      '</urn:one|e>',
      '</urn:one|a>',
    ]);
  });

  it('takes a tag of 900,000 characters fed in 100-character pieces in linear time', () => {
    const xml = `<a v="${'x'.repeat(900_000)}"/>`;
    const started = performance.now();
    expect(events(xml, 100)).to.have.length(2);
    expect(performance.now() - started).to.be.below(1_000);
  });

  it('refuses a tag longer than 1 MB as it arrives, and takes a longer text', () => {
    const tag = `<a><b v="${'x'.repeat(1_100_000)}`;
    const reader = new XmlReader({ open() {}, close() {}, text() {} }, 'part.xml');
    expect(() => {
      for (let at = 0; at < tag.length; at += 4096) reader.write(tag.slice(at, at + 4096));
    }).to.throw(XmlError, 'part.xml has a tag longer than 1 MB');
    expect(events(`<a>${'word '.repeat(500_000)}</a>`, 4096)[1]).to.have.length(1 + 2_500_000);
  });

  it('refuses a part with more than 100 well-formedness errors, after reading a few', () => {
    const reader = new XmlReader({ open() {}, close() {}, text() {} }, 'part.xml');
    expect(() => reader.write(`<a>${'&nope;'.repeat(1_000)}</a>`)).to.throw(
      XmlError,
      'part.xml is not well-formed XML (1:9: undefined entity.)',
    );
  });
});
