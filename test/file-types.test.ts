import { expect } from 'chai';
import { strToU8, zipSync } from 'fflate';
import { DOCUMENT_FORMATS, DOCX, ODS, PDF, PPTX, XLSX } from '../core/file-types.ts';
import { newId } from '../db/ids.ts';
import { docxFile, odsFile, pdfFile, pptxFile, xlsxFile } from '../db/seeds/office-files.ts';
import type { RunningServer } from '../server/http.ts';
import { dialects, type TestDb } from './helpers/db.ts';
import { buildFixture, type Fixture } from './helpers/fixture.ts';
import { zipOfHtmlAndExe } from './helpers/hostile-files.ts';
import { startTestServer } from './helpers/server.ts';

const SHEETS = [{ name: 'KPIs', rows: [['Month', 'Revenue']] }];
const genuine = {
  docx: docxFile(['Dear shareholders']),
  xlsx: xlsxFile(SHEETS),
  pptx: pptxFile([['Pitch']]),
  ods: odsFile(SHEETS),
};

describe('file types: what the content of an upload must be', () => {
  it('matches genuine DOCX, XLSX, PPTX and ODS files, each as its own format only', () => {
    const formats = { docx: DOCX, xlsx: XLSX, pptx: PPTX, ods: ODS };
    for (const [kind, bytes] of Object.entries(genuine)) {
      for (const [other, format] of Object.entries(formats)) {
        expect(format.matches(bytes.subarray(0, 16)), `${kind} signature as ${other}`).to.equal(true);
        expect(format.contentMatches(bytes), `${kind} content as ${other}`).to.equal(kind === other);
      }
    }
    expect(PDF.contentMatches(pdfFile([['x']]))).to.equal(true);
  });

  it('refuses a zip of HTML and an executable named .docx, and a .docx named .xlsx', () => {
    const zip = zipOfHtmlAndExe();
    expect(DOCX.matches(zip)).to.equal(true); // the first bytes are a zip's, as any office file's
    for (const format of [DOCX, XLSX, PPTX, ODS]) expect(format.contentMatches(zip)).to.equal(false);
    expect(XLSX.contentMatches(genuine.docx)).to.equal(false);
  });

  it('refuses a DOCX without [Content_Types].xml, an ODS of another mimetype, and a cut zip', () => {
    const noTypes = Buffer.from(zipSync({ 'word/document.xml': strToU8('<w:document/>') }));
    expect(DOCX.contentMatches(noTypes)).to.equal(false);
    const text = Buffer.from(
      zipSync({
        mimetype: strToU8('application/vnd.oasis.opendocument.text'),
        'content.xml': strToU8('<x/>'),
      }),
    );
    expect(ODS.contentMatches(text)).to.equal(false);
    expect(DOCX.contentMatches(genuine.docx.subarray(0, genuine.docx.length - 30))).to.equal(false);
  });

  it('never inflates a part to check a zip: the names decide, even over a part that cannot inflate', () => {
    // A stored part relabelled as deflated: inflating it would fail, so a match proves nothing was inflated.
    const zip = Buffer.from(
      zipSync(
        { '[Content_Types].xml': strToU8('<Types/>'), 'word/document.xml': new Uint8Array(4096).fill(0xff) },
        { level: 0 },
      ),
    );
    for (const signature of [0x04034b50, 0x02014b50]) {
      const header = Buffer.alloc(4);
      header.writeUInt32LE(signature);
      for (let at = zip.indexOf(header); at >= 0; at = zip.indexOf(header, at + 1))
        zip.writeUInt16LE(8, at + (signature === 0x04034b50 ? 8 : 10));
    }
    expect(DOCX.contentMatches(zip)).to.equal(true);
  });
});

for (const dialect of dialects) {
  describe(`file types at the REST door (${dialect.name}) @db`, function () {
    this.timeout(60_000);
    let t: TestDb;
    let fx: Fixture;
    let server: RunningServer;

    before(async () => {
      t = await dialect.open();
      fx = await buildFixture(t.db);
      server = await startTestServer(t.db);
    });
    after(async () => {
      await server?.close();
      await t?.drop();
    });

    const send = async (name: string, content: Buffer) => {
      const form = new FormData();
      form.append('company_id', fx.companies.acme.id);
      form.append('file', new Blob([new Uint8Array(content)]), name);
      const res = await fetch(`${server.url}/v1/documents/`, {
        method: 'POST',
        headers: { Authorization: `Bearer ${fx.editor.rest}` },
        body: form,
      });
      return { status: res.status, body: (await res.json()) as { code?: string; document_id?: string } };
    };

    it('refuses with 415 a zip of HTML and an executable named .docx, and a .docx named .xlsx', async () => {
      const before = Number((await t.db('documents').count({ n: '*' }).first())?.n);
      const disguised = await send('report.docx', zipOfHtmlAndExe());
      expect(disguised.status).to.equal(415);
      expect(disguised.body.code).to.equal('unsupported_media_type');
      const renamed = await send('model.xlsx', genuine.docx);
      expect(renamed.status).to.equal(415);
      expect(Number((await t.db('documents').count({ n: '*' }).first())?.n)).to.equal(before);
      const real = await send('letter.docx', genuine.docx);
      expect(real.status, JSON.stringify(real.body)).to.equal(201);
    });

    it('serves a stored document whose content is not its type as application/octet-stream, nosniff', async () => {
      const id = newId();
      const fileId = newId();
      const html = Buffer.from('<html><script>alert(1)</script></html>');
      await fx.repos.documents.create(
        {
          id,
          firm_id: fx.firmA.id,
          company_id: fx.companies.acme.id,
          information_request_id: null,
          file_id: fileId,
          name: 'old.pdf',
          parse_state: 'not-started',
          parsed_at: null,
          uploaded_at: '2026-05-01T10:00:00.000Z',
          submitted_date: '2026-05-01',
          source: 'upload',
        },
        {
          id: fileId,
          filename: 'old.pdf',
          content_type: 'application/pdf',
          size: html.length,
          content: html,
        },
      );
      const res = await fetch(`${server.url}/v1/documents/${id}/download/`, {
        headers: { Authorization: `Bearer ${fx.editor.rest}` },
      });
      expect(res.status).to.equal(200);
      expect(res.headers.get('content-type')).to.equal('application/octet-stream');
      expect(res.headers.get('x-content-type-options')).to.equal('nosniff');
      expect(res.headers.get('content-disposition')).to.match(/^attachment;/);
      expect(Buffer.from(await res.arrayBuffer()).equals(html)).to.equal(true);
    });

    it('serves a stored document whose content matches with its type', async () => {
      const docx = DOCUMENT_FORMATS.find((f) => f.extensions.includes('.docx'))!;
      const sent = await send('kept.docx', genuine.docx);
      const res = await fetch(`${server.url}/v1/documents/${sent.body.document_id}/download/`, {
        headers: { Authorization: `Bearer ${fx.editor.rest}` },
      });
      expect(res.headers.get('content-type')).to.equal(docx.contentType);
      expect(res.headers.get('x-content-type-options')).to.equal('nosniff');
    });
  });
}
