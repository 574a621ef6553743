import { readFileSync } from 'node:fs';
import { request } from 'node:http';
import { Ajv } from 'ajv';
import { expect } from 'chai';
import type { Request } from 'express';
import { authenticate } from '../auth/principal.ts';
import type { User } from '../core/principal.ts';
import { newId } from '../db/ids.ts';
import { docxFile, odsFile, pptxFile, xlsxFile } from '../db/seeds/office-files.ts';
import { authorizeUpload } from '../rest/adapter.ts';
import { routes } from '../rest/routes.ts';
import { loadConfig } from '../server/config.ts';
import type { RunningServer } from '../server/http.ts';
import { createLogger } from '../server/logger.ts';
import type { ToolContext } from '../tools/context.ts';
import { InsufficientScope } from '../tools/errors.ts';
import { toolByName } from '../tools/registry.ts';
import { runTool } from '../tools/run.ts';
import { dialects, type TestDb } from './helpers/db.ts';
import { buildFixture, type Fixture, issueToken } from './helpers/fixture.ts';
import { assertReference } from './helpers/reference.ts';
import { api, startTestServer } from './helpers/server.ts';

const MiB = 1024 * 1024;

const bytes = (...parts: (string | number[])[]) =>
  Buffer.concat(parts.map((p) => (typeof p === 'string' ? Buffer.from(p, 'latin1') : Buffer.from(p))));

/** Small files that start as their formats do, with a tail that makes each one distinct. */
const files = {
  pdf: () =>
    bytes('%PDF-1.4\n1 0 obj << >> endobj\n', `% ${newId()}\n`, [0, 0xff, 0x80, 0x0d, 0x0a], '%%EOF\n'),
  png: () => bytes([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a], [0, 0, 0, 13], 'IHDR', newId()),
  jpeg: () => bytes([0xff, 0xd8, 0xff, 0xe0], 'JFIF', newId(), [0xff, 0xd9]),
  docx: () => docxFile([newId()]),
  xlsx: () => xlsxFile([{ name: 'Sheet1', rows: [[newId()]] }]),
  pptx: () => pptxFile([[newId()]]),
  ods: () => odsFile([{ name: 'Sheet1', rows: [[newId()]] }]),
  webp: () => bytes('RIFF', [16, 0, 0, 0], 'WEBPVP8 ', newId()),
};

/** The 201 schema the reference gives an operation, to validate our answers against. */
function referenceResponse(path: string): (value: unknown) => boolean {
  const doc = JSON.parse(readFileSync(new URL('./reference/main-openapi.json', import.meta.url), 'utf8'));
  const schema = doc.paths[path].post.responses['201'].content['application/json'].schema;
  return new Ajv({ strict: false }).compile(schema);
}

interface FilePart {
  name: string;
  content: Uint8Array;
  type?: string;
}

/** A real multipart/form-data request built with FormData, as any client would send it. */
async function upload(
  base: string,
  path: string,
  token: string | undefined,
  fields: Record<string, string | FilePart>,
  headers: Record<string, string> = {},
) {
  const form = new FormData();
  for (const [name, value] of Object.entries(fields)) {
    if (typeof value === 'string') form.append(name, value);
    else
      form.append(
        name,
        new Blob([new Uint8Array(value.content)], { type: value.type ?? 'application/octet-stream' }),
        value.name,
      );
  }
  const res = await fetch(base + path, {
    method: 'POST',
    headers: { ...(token ? { Authorization: `Bearer ${token}` } : {}), ...headers },
    body: form,
  });
  const text = await res.text();
  let body: unknown = text;
  try {
    body = JSON.parse(text);
  } catch {
    // not JSON
  }
  // biome-ignore lint/suspicious/noExplicitAny: tests inspect arbitrary JSON
  return { status: res.status, headers: res.headers, body: body as any };
}

const fieldsOf = (body: { errors?: { field: string }[] }) => (body.errors ?? []).map((e) => e.field).sort();

/** A PDF of `size` bytes. */
const pdfOf = (size: number) => {
  const content = Buffer.alloc(size, 0x20);
  content.write(`%PDF-1.4\n% ${newId()}\n`, 0, 'latin1');
  return content;
};

/** Multipart parts written by hand (boundary `b`), for what FormData cannot send or send slowly. */
const multipart = { 'Content-Type': 'multipart/form-data; boundary=b' };
const fieldPart = (name: string, value: string) =>
  `--b\r\nContent-Disposition: form-data; name="${name}"\r\n\r\n${value}\r\n`;
const filePart = (nameParameter: string) =>
  `--b\r\nContent-Disposition: form-data; name="file"; ${nameParameter}\r\n` +
  'Content-Type: application/octet-stream\r\n\r\n';
const formEnd = '\r\n--b--\r\n';

/**
 * Declares a body of `total` bytes, sends `start` and then the rest slowly, 64 KiB at a time, until an
 * answer arrives: resolves with the answer and how many bytes had been sent when it came.
 */
function answerWhileSending(
  base: string,
  path: string,
  headers: Record<string, string>,
  start: string | Buffer,
  total: number,
  // biome-ignore lint/suspicious/noExplicitAny: tests inspect arbitrary JSON
): Promise<{ status: number; body: any; sent: number }> {
  const { hostname, port } = new URL(base);
  return new Promise((resolve, reject) => {
    let sent = 0;
    let answered = false;
    const req = request(
      { hostname, port, path, method: 'POST', headers: { ...headers, 'Content-Length': String(total) } },
      (res) => {
        answered = true;
        const sentWhenAnswered = sent;
        const chunks: Buffer[] = [];
        res.on('data', (chunk: Buffer) => chunks.push(chunk));
        res.on('end', () => {
          req.destroy();
          const text = Buffer.concat(chunks).toString('utf8');
          resolve({
            status: res.statusCode ?? 0,
            body: text ? JSON.parse(text) : null,
            sent: sentWhenAnswered,
          });
        });
      },
    );
    req.on('error', (err) => {
      if (!answered) reject(err);
    });
    const write = (chunk: Buffer) => {
      sent += chunk.length;
      req.write(chunk);
    };
    write(Buffer.from(start));
    const filler = Buffer.alloc(64 * 1024, 0x20);
    const timer = setInterval(() => {
      if (answered || sent >= total) clearInterval(timer);
      else write(filler.subarray(0, Math.min(filler.length, total - sent)));
    }, 5);
  });
}

for (const dialect of dialects) {
  describe(`uploads: POST /v1/documents/ and POST /v1/companies/{id}/logo/ (${dialect.name}) @db`, function () {
    this.timeout(60_000);
    let t: TestDb;
    let fx: Fixture;
    let server: RunningServer;
    /** An editor of firm A who sees only Acme (documents allowed). */
    let acmeOnly: string;
    /** An editor of firm A without the documents flag. */
    let noDocuments: string;

    async function addUser(extra: Partial<User>, companyIds: string[] = []): Promise<string> {
      const user: User = {
        id: newId(),
        firm_id: fx.firmA.id,
        email: `${newId().toLowerCase()}@alpha.test`,
        first_name: 'Up',
        last_name: 'Loader',
        password_hash: 'x',
        role: 'editor',
        all_companies: true,
        can_view_documents: true,
        can_edit_cap_table: false,
        is_active: true,
        created_at: '2026-01-01T00:00:00.000Z',
        ...extra,
      };
      await fx.repos.users.create(user, companyIds);
      return issueToken(fx.repos, user);
    }

    const count = async (table: string) => Number((await t.db(table).count({ n: '*' }).first())?.n ?? 0);
    const counts = async () => ({
      documents: await count('documents'),
      files: await count('document_files'),
      logos: await count('company_logos'),
      changes: await count('change_log'),
    });

    const uploadDocument = (
      token: string | undefined,
      fields: Record<string, string | FilePart>,
      headers = {},
    ) => upload(server.url, '/v1/documents/', token, fields, headers);
    const uploadLogo = (token: string, companyId: string, file: FilePart | string, headers = {}) =>
      upload(server.url, `/v1/companies/${companyId}/logo/`, token, { file }, headers);

    before(async () => {
      t = await dialect.open();
      fx = await buildFixture(t.db);
      server = await startTestServer(t.db);
      acmeOnly = await addUser({ all_companies: false }, [fx.companies.acme.id]);
      noDocuments = await addUser({ can_view_documents: false });
    });
    after(async () => {
      await server?.close();
      await t?.drop();
    });

    /** The editor's tool context as a token with only the read scope would give it. */
    async function readOnlyEditorContext(): Promise<ToolContext> {
      const principal = await authenticate(
        fx.repos,
        { now: () => new Date() },
        `Bearer ${fx.editor.rest}`,
        'rest',
      );
      return {
        principal: { ...principal, scopes: ['read'] },
        repos: fx.repos,
        clock: { now: () => new Date() },
        logger: createLogger('silent'),
        requestId: 'r',
        publicUrl: server.url,
        documentStorageQuotaBytes: loadConfig({}).documentStorageQuotaBytes,
      };
    }

    describe('documents', () => {
      it('stores a PDF and answers 201 in the reference shape with the new document id', async () => {
        const content = files.pdf();
        const res = await uploadDocument(fx.editor.rest, {
          company_id: fx.companies.acme.id,
          file: { name: 'Board deck Q1.pdf', content, type: 'application/pdf' },
        });
        expect(res.status, JSON.stringify(res.body)).to.equal(201);
        expect(referenceResponse('/documents/')(res.body)).to.equal(true);
        expect(res.body.success).to.equal(true);
        expect(res.body.message).to.be.a('string').that.is.not.empty;
        expect(res.body.document_id).to.be.a('string');
      });

      it('lists the upload in GET /v1/documents/ as not-started and downloads it byte-identical', async () => {
        const content = files.pdf();
        const res = await uploadDocument(fx.editor.rest, {
          company_id: fx.companies.beta.id,
          file: { name: 'Résumé financier.pdf', content },
        });
        expect(res.status, JSON.stringify(res.body)).to.equal(201);
        const list = await api(server.url, `/v1/documents/?company_id=${fx.companies.beta.id}`, {
          token: fx.editor.rest,
        });
        expect(list.status).to.equal(200);
        const item = list.body.results.find((d: { id: string }) => d.id === res.body.document_id);
        expect(item).to.include({
          name: 'Résumé financier.pdf',
          company_id: fx.companies.beta.id,
          parse_state: 'not-started',
          parsed_at: null,
          source: 'upload',
          information_request_id: '',
        });
        expect(item.submitted_date).to.equal(item.uploaded_at.slice(0, 10));
        assertReference('main', 'LibraryDocument', item);

        const download = await fetch(item.link, { headers: { Authorization: `Bearer ${fx.viewer.rest}` } });
        expect(download.status).to.equal(200);
        expect(download.headers.get('content-type')).to.equal('application/pdf');
        expect(Buffer.from(await download.arrayBuffer()).equals(content)).to.equal(true);
      });

      it('stores the type its content shows, whatever the client claimed, and keeps the name without a directory', async () => {
        const content = files.docx();
        const res = await uploadDocument(fx.editor.rest, {
          company_id: fx.companies.acme.id,
          file: { name: 'C:\\reports\\Plan.DOCX', content, type: 'text/plain' },
        });
        expect(res.status, JSON.stringify(res.body)).to.equal(201);
        const row = await t.db('documents').where({ id: res.body.document_id }).first();
        expect(row.name).to.equal('Plan.DOCX');
        const file = await t.db('document_files').where({ id: row.file_id }).first();
        expect(file.content_type).to.equal(
          'application/vnd.openxmlformats-officedocument.wordprocessingml.document',
        );
        expect(Number(file.size)).to.equal(content.length);
      });

      it('records the upload in the change log with who and when', async () => {
        const res = await uploadDocument(fx.editor.rest, {
          company_id: fx.companies.acme.id,
          file: { name: 'minutes.pdf', content: files.pdf() },
        });
        expect(res.status).to.equal(201);
        const log = await fx.repos.changeLog.of(fx.firmA.id, 'documents', res.body.document_id);
        expect(log).to.have.length(1);
        expect(log[0]).to.include({ action: 'create', changed_by: fx.editor.user.id });
        expect(JSON.parse(log[0]!.changes!)).to.include({
          company_id: fx.companies.acme.id,
          name: 'minutes.pdf',
        });
      });

      it('accepts a file of exactly 32 MB and refuses one byte more with 413 naming file, writing nothing', async () => {
        const big = Buffer.alloc(32 * MiB, 0x20);
        big.write('%PDF-1.7\n', 0, 'latin1');
        const before = await counts();
        const over = await uploadDocument(fx.editor.rest, {
          company_id: fx.companies.acme.id,
          file: { name: 'huge.pdf', content: Buffer.concat([big, Buffer.from(' ')]) },
        });
        expect(over.status).to.equal(413);
        expect(over.headers.get('content-type')).to.match(/^application\/problem\+json/);
        expect(over.body.code).to.equal('payload_too_large');
        expect(fieldsOf(over.body)).to.deep.equal(['file']);
        expect(await counts()).to.deep.equal(before);

        const exact = await uploadDocument(fx.editor.rest, {
          company_id: fx.companies.acme.id,
          file: { name: 'big.pdf', content: big },
        });
        expect(exact.status, JSON.stringify(exact.body)).to.equal(201);
      });

      it('refuses a type that is not accepted with 415 naming file: by extension and by content', async () => {
        const before = await counts();
        const exe = await uploadDocument(fx.editor.rest, {
          company_id: fx.companies.acme.id,
          file: { name: 'setup.exe', content: bytes('MZ', newId()) },
        });
        expect(exe.status).to.equal(415);
        expect(exe.body.code).to.equal('unsupported_media_type');
        expect(fieldsOf(exe.body)).to.deep.equal(['file']);
        expect(exe.body.detail).to.include('.pdf');

        const disguised = await uploadDocument(fx.editor.rest, {
          company_id: fx.companies.acme.id,
          file: { name: 'report.pdf', content: files.png(), type: 'application/pdf' },
        });
        expect(disguised.status).to.equal(415);
        expect(fieldsOf(disguised.body)).to.deep.equal(['file']);

        const html = await uploadDocument(fx.editor.rest, {
          company_id: fx.companies.acme.id,
          file: { name: 'sheet.xlsx', content: bytes('<html><script>alert(1)</script></html>') },
        });
        expect(html.status).to.equal(415);
        expect(await counts()).to.deep.equal(before);
      });

      it('accepts every file type of the reference with content of that type', async () => {
        const samples: [string, Buffer, string][] = [
          ['a.pdf', files.pdf(), 'application/pdf'],
          ['a.docx', files.docx(), 'application/vnd.openxmlformats-officedocument.wordprocessingml.document'],
          ['a.xlsx', files.xlsx(), 'application/vnd.openxmlformats-officedocument.spreadsheetml.sheet'],
          [
            'a.pptx',
            files.pptx(),
            'application/vnd.openxmlformats-officedocument.presentationml.presentation',
          ],
          ['a.ods', files.ods(), 'application/vnd.oasis.opendocument.spreadsheet'],
          ['a.jpg', files.jpeg(), 'image/jpeg'],
          ['a.jpeg', files.jpeg(), 'image/jpeg'],
          ['a.png', files.png(), 'image/png'],
          ['a.webp', files.webp(), 'image/webp'],
          ['a.gif', bytes('GIF89a', newId()), 'image/gif'],
        ];
        for (const [name, content, type] of samples) {
          const res = await uploadDocument(fx.editor.rest, {
            company_id: fx.companies.gamma.id,
            file: { name, content },
          });
          expect(res.status, `${name}: ${JSON.stringify(res.body)}`).to.equal(201);
          const download = await fetch(`${server.url}/v1/documents/${res.body.document_id}/download/`, {
            headers: { Authorization: `Bearer ${fx.editor.rest}` },
          });
          expect(download.headers.get('content-type'), name).to.equal(type);
          expect(Buffer.from(await download.arrayBuffer()).equals(content), name).to.equal(true);
        }
      });

      it('answers 401 and 413 from the headers and 415 from the first bytes of the file, before the rest is sent', async () => {
        const { hostname, port } = new URL(server.url);
        /** Sends the headers and a first chunk of a larger body, and resolves with the status that comes back. */
        const statusBeforeBody = (headers: Record<string, string>, start: string | Buffer = '--b\r\n') =>
          new Promise<number>((resolve, reject) => {
            const req = request(
              { hostname, port, path: '/v1/documents/', method: 'POST', headers },
              (res) => {
                res.resume();
                resolve(res.statusCode ?? 0);
                req.destroy();
              },
            );
            req.on('error', reject);
            req.write(start);
          });
        const multipart = { 'Content-Type': 'multipart/form-data; boundary=b' };
        expect(await statusBeforeBody({ ...multipart, 'Content-Length': String(10 * MiB) })).to.equal(401);
        expect(
          await statusBeforeBody({
            ...multipart,
            'Content-Length': String(40 * MiB),
            Authorization: `Bearer ${fx.editor.rest}`,
          }),
        ).to.equal(413);
        // The start of a PNG under a .pdf name: refused on its first bytes, the other 10 MB never sent.
        const pngAsPdf = Buffer.concat([
          Buffer.from('--b\r\nContent-Disposition: form-data; name="file"; filename="deck.pdf"\r\n\r\n'),
          files.png(),
        ]);
        const headers = {
          ...multipart,
          'Content-Length': String(10 * MiB),
          Authorization: `Bearer ${fx.editor.rest}`,
        };
        expect(await statusBeforeBody(headers, pngAsPdf)).to.equal(415);
      });

      it('answers 400 to a form that ends inside its file, and goes on serving', async () => {
        const before = await counts();
        for (const fields of [fieldPart('company_id', fx.companies.acme.id), '']) {
          const res = await fetch(`${server.url}/v1/documents/`, {
            method: 'POST',
            headers: { ...multipart, Authorization: `Bearer ${fx.editor.rest}` },
            body: Buffer.concat([Buffer.from(fields + filePart('filename="cut.pdf"')), files.pdf()]),
          });
          expect(res.status).to.equal(400);
          expect((await res.json()).errors).to.deep.equal([
            { field: 'body', message: 'ended before the multipart body was complete' },
          ]);
        }
        expect(await counts()).to.deep.equal(before);
        expect((await api(server.url, '/v1/documents/', { token: fx.editor.rest })).status).to.equal(200);
      });

      it('refuses a JSON body with 415 and asks for multipart/form-data', async () => {
        const res = await api(server.url, '/v1/documents/', {
          token: fx.editor.rest,
          method: 'POST',
          body: { company_id: fx.companies.acme.id, file: 'JVBERi0xLjQ=' },
        });
        expect(res.status).to.equal(415);
        expect(res.body.detail).to.include('multipart/form-data');
      });

      it('answers 400 naming each missing field: company_id, file, or both', async () => {
        const before = await counts();
        const noCompany = await uploadDocument(fx.editor.rest, {
          file: { name: 'a.pdf', content: files.pdf() },
        });
        expect(noCompany.status).to.equal(400);
        expect(fieldsOf(noCompany.body)).to.deep.equal(['company_id']);

        const noFile = await uploadDocument(fx.editor.rest, { company_id: fx.companies.acme.id });
        expect(noFile.status).to.equal(400);
        expect(fieldsOf(noFile.body)).to.deep.equal(['file']);

        const empty = await uploadDocument(fx.editor.rest, {});
        expect(empty.status).to.equal(400);
        expect(fieldsOf(empty.body)).to.deep.equal(['company_id', 'file']);

        const text = await uploadDocument(fx.editor.rest, {
          company_id: fx.companies.acme.id,
          file: 'not a file',
        });
        expect(text.status).to.equal(400);
        expect(fieldsOf(text.body)).to.deep.equal(['file']);

        const emptyFile = await uploadDocument(fx.editor.rest, {
          company_id: fx.companies.acme.id,
          file: { name: 'empty.pdf', content: new Uint8Array() },
        });
        expect(emptyFile.status).to.equal(400);
        expect(fieldsOf(emptyFile.body)).to.deep.equal(['file']);
        expect(await counts()).to.deep.equal(before);
      });

      it("refuses another firm's company and an inaccessible one exactly as an unknown id, writing nothing", async () => {
        const before = await counts();
        const send = (token: string, companyId: string) =>
          uploadDocument(token, { company_id: companyId, file: { name: 'x.pdf', content: files.pdf() } });
        const unknown = await send(fx.editor.rest, 'NoSuchCompany123');
        expect(unknown.status).to.equal(404);
        const strip = (body: Record<string, unknown>, id: string) =>
          JSON.stringify({ ...body, request_id: undefined }).replaceAll(id, '<id>');
        const foreign = await send(fx.editor.rest, fx.companies.zeta.id);
        expect(foreign.status).to.equal(404);
        expect(strip(foreign.body, fx.companies.zeta.id)).to.equal(strip(unknown.body, 'NoSuchCompany123'));
        const hidden = await send(acmeOnly, fx.companies.gamma.id);
        expect(hidden.status).to.equal(404);
        expect(strip(hidden.body, fx.companies.gamma.id)).to.equal(strip(unknown.body, 'NoSuchCompany123'));
        expect(await counts()).to.deep.equal(before);
        const allowed = await send(acmeOnly, fx.companies.acme.id);
        expect(allowed.status).to.equal(201);
      });

      it('refuses a user without the documents flag and a viewer with 403, and a caller without a token with 401', async () => {
        const before = await counts();
        const denied = await uploadDocument(noDocuments, {
          company_id: fx.companies.acme.id,
          file: { name: 'x.pdf', content: files.pdf() },
        });
        expect(denied.status).to.equal(403);
        expect(denied.body.code).to.equal('permission_denied');
        const viewer = await uploadDocument(fx.viewer.rest, {
          company_id: fx.companies.acme.id,
          file: { name: 'x.pdf', content: files.pdf() },
        });
        expect(viewer.status).to.equal(403);
        expect(viewer.body.detail).to.include('editor or admin');
        const anonymous = await uploadDocument(undefined, {
          company_id: fx.companies.acme.id,
          file: { name: 'x.pdf', content: files.pdf() },
        });
        expect(anonymous.status).to.equal(401);
        expect(await counts()).to.deep.equal(before);
      });

      it('refuses a read-only token with insufficient_scope before reading its input', async () => {
        const ctx = await readOnlyEditorContext();
        const before = await counts();
        for (const name of ['upload_document', 'upload_company_logo']) {
          let caught: unknown;
          try {
            await runTool(toolByName(name)!, ctx, {
              company_id: fx.companies.acme.id,
              file: { filename: 'a.png', content_type: 'image/png', bytes: files.png() },
            });
          } catch (err) {
            caught = err;
          }
          expect(caught, name).to.be.instanceOf(InsufficientScope);
        }
        expect(await counts()).to.deep.equal(before);
      });

      it('replays a retry with the same Idempotency-Key and file without storing it twice; another file is 409', async () => {
        const key = `upload-${newId()}`;
        const content = files.pdf();
        const send = (file: Uint8Array) =>
          uploadDocument(
            fx.editor.rest,
            { company_id: fx.companies.acme.id, file: { name: 'retry.pdf', content: file } },
            { 'Idempotency-Key': key },
          );
        const first = await send(content);
        expect(first.status).to.equal(201);
        const before = await counts();
        const retry = await send(content);
        expect(retry.status).to.equal(201);
        expect(retry.headers.get('idempotent-replayed')).to.equal('true');
        expect(retry.body).to.deep.equal(first.body);
        expect(await counts()).to.deep.equal(before);
        const other = await send(files.pdf());
        expect(other.status).to.equal(409);
        expect(await counts()).to.deep.equal(before);
      });
    });

    describe('authorised before the file is read', () => {
      // Within every route's size limit, so only the checks before the file can answer early.
      const total = 4 * MiB;
      const pdfStart = (companyId: string) =>
        Buffer.concat([
          Buffer.from(fieldPart('company_id', companyId) + filePart('filename="deck.pdf"')),
          files.pdf(),
        ]);

      it('refuses a viewer and a user without documents with 403 while the file is still being sent, on every upload route', async () => {
        const uploadRoutes = routes.filter((r) => r.upload);
        expect(uploadRoutes.map((r) => r.path)).to.include.members([
          '/v1/documents/',
          '/v1/companies/:company_id/logo/',
        ]);
        const before = await counts();
        for (const route of uploadRoutes) {
          const path = route.path.replace(/:[a-z_]+/g, fx.companies.acme.id);
          for (const [who, token] of [
            ['viewer', fx.viewer.rest],
            ['no documents', noDocuments],
          ] as const) {
            if (who === 'no documents' && route.tool.permission !== 'add_documents') continue;
            const start = Buffer.concat([Buffer.from(filePart('filename="a.png"')), files.png()]);
            const answer = await answerWhileSending(
              server.url,
              path,
              { ...multipart, Authorization: `Bearer ${token}` },
              start,
              total,
            );
            expect(answer.status, `${who} ${path}`).to.equal(403);
            expect(answer.body.code).to.equal('permission_denied');
            expect(answer.sent, `${who} ${path}`).to.be.below(total);
          }
        }
        const viewer = await answerWhileSending(
          server.url,
          '/v1/documents/',
          { ...multipart, Authorization: `Bearer ${fx.viewer.rest}` },
          pdfStart(fx.companies.acme.id),
          total,
        );
        expect(viewer.body.detail).to.include('editor or admin');
        expect(await counts()).to.deep.equal(before);
      });

      it('refuses a read-only token with insufficient_scope on every upload route from the principal alone', async () => {
        const ctx = await readOnlyEditorContext();
        const req = { params: { company_id: fx.companies.acme.id } } as unknown as Request;
        for (const route of routes.filter((r) => r.upload)) {
          let caught: unknown;
          try {
            await authorizeUpload(route, ctx, req, {});
          } catch (err) {
            caught = err;
          }
          expect(caught, route.path).to.be.instanceOf(InsufficientScope);
        }
      });

      it("refuses another firm's company, named before the file, with 404 while the file is still being sent", async () => {
        const before = await counts();
        const auth = { ...multipart, Authorization: `Bearer ${fx.editor.rest}` };
        const foreign = await answerWhileSending(
          server.url,
          '/v1/documents/',
          auth,
          pdfStart(fx.companies.zeta.id),
          total,
        );
        expect(foreign.status).to.equal(404);
        expect(foreign.body.code).to.equal('not_found');
        expect(foreign.sent).to.be.below(total);
        const hidden = await answerWhileSending(
          server.url,
          '/v1/documents/',
          { ...multipart, Authorization: `Bearer ${acmeOnly}` },
          pdfStart(fx.companies.gamma.id),
          total,
        );
        expect(hidden.status).to.equal(404);
        expect(hidden.sent).to.be.below(total);
        const logo = await answerWhileSending(
          server.url,
          `/v1/companies/${fx.companies.zeta.id}/logo/`,
          auth,
          Buffer.concat([Buffer.from(filePart('filename="z.png"')), files.png()]),
          total,
        );
        expect(logo.status).to.equal(404);
        expect(logo.sent).to.be.below(total);
        expect(await counts()).to.deep.equal(before);
      });

      it('checks a company sent after the file once the file is read, as before', async () => {
        const before = await counts();
        const foreign = await uploadDocument(fx.editor.rest, {
          file: { name: 'late.pdf', content: files.pdf() },
          company_id: fx.companies.zeta.id,
        });
        expect(foreign.status).to.equal(404);
        expect(await counts()).to.deep.equal(before);
        const own = await uploadDocument(fx.editor.rest, {
          file: { name: 'late.pdf', content: files.pdf() },
          company_id: fx.companies.acme.id,
        });
        expect(own.status, JSON.stringify(own.body)).to.equal(201);
      });
    });

    describe('file names', () => {
      /** A form with the file's name as RFC 8187 gives it (`filename*=UTF-8''…`), which may encode any character. */
      const sendNamed = (encodedName: string, content: Buffer) =>
        fetch(`${server.url}/v1/documents/`, {
          method: 'POST',
          headers: { ...multipart, Authorization: `Bearer ${fx.editor.rest}` },
          body: Buffer.concat([
            Buffer.from(fieldPart('company_id', fx.companies.acme.id)),
            Buffer.from(filePart(`filename*=UTF-8''${encodedName}`)),
            content,
            Buffer.from(formEnd),
          ]),
        }).then(async (res) => ({ status: res.status, body: await res.json() }));

      it('stores and lists a name without CR, LF, C1 controls or bidirectional overrides', async () => {
        const dirty = 'Q1%0D%0Aboard%C2%85%20deck%E2%80%AEfdp%E2%81%A6.pdf';
        const res = await sendNamed(dirty, files.pdf());
        expect(res.status, JSON.stringify(res.body)).to.equal(201);
        const row = await t.db('documents').where({ id: res.body.document_id }).first();
        expect(row.name).to.equal('Q1board deckfdp.pdf');
        const file = await t.db('document_files').where({ id: row.file_id }).first();
        expect(file.filename).to.equal('Q1board deckfdp.pdf');
        const list = await api(
          server.url,
          `/v1/documents/?company_id=${fx.companies.acme.id}&page_size=100`,
          {
            token: fx.editor.rest,
          },
        );
        const item = list.body.results.find((d: { id: string }) => d.id === res.body.document_id);
        expect(item.name).to.equal('Q1board deckfdp.pdf');
        const log = await fx.repos.changeLog.of(fx.firmA.id, 'documents', res.body.document_id);
        expect(JSON.parse(log[0]!.changes!).name).to.equal('Q1board deckfdp.pdf');
      });

      it('answers 400 naming file when nothing is left of the name', async () => {
        const before = await counts();
        const res = await sendNamed('%E2%80%AE%0D%0A%C2%9B', files.pdf());
        expect(res.status).to.equal(400);
        expect(fieldsOf(res.body)).to.deep.equal(['file']);
        expect(await counts()).to.deep.equal(before);
      });

      it('lists and downloads names stored before they were cleaned without their control characters', async () => {
        const id = newId();
        const fileId = newId();
        const content = files.pdf();
        const dirty = 'old\r\nname\u202Efdp.exe\u0085.pdf';
        await fx.repos.documents.create(
          {
            id,
            firm_id: fx.firmA.id,
            company_id: fx.companies.gamma.id,
            information_request_id: null,
            file_id: fileId,
            name: dirty,
            parse_state: 'not-started',
            parsed_at: null,
            uploaded_at: '2026-01-02T00:00:00.000Z',
            submitted_date: '2026-01-02',
            source: 'upload',
          },
          { id: fileId, filename: dirty, content_type: 'application/pdf', size: content.length, content },
        );
        const list = await api(
          server.url,
          `/v1/documents/?company_id=${fx.companies.gamma.id}&page_size=100`,
          {
            token: fx.editor.rest,
          },
        );
        expect(list.body.results.find((d: { id: string }) => d.id === id).name).to.equal(
          'oldnamefdp.exe.pdf',
        );
        const download = await fetch(`${server.url}/v1/documents/${id}/download/`, {
          headers: { Authorization: `Bearer ${fx.editor.rest}` },
        });
        expect(download.status).to.equal(200);
        expect(download.headers.get('content-disposition')).to.equal(
          `attachment; filename="oldnamefdp.exe.pdf"; filename*=UTF-8''oldnamefdp.exe.pdf`,
        );
      });

      it('names the file in the 415 for content that is not of its extension', async () => {
        const res = await uploadDocument(fx.editor.rest, {
          company_id: fx.companies.acme.id,
          file: { name: 'deck.docx', content: files.png() },
        });
        expect(res.status).to.equal(415);
        expect(res.body.detail).to.equal('file: "deck.docx" is not a .docx file, whatever its name says');
        expect(res.body.errors).to.deep.equal([
          { field: 'file', message: '"deck.docx" is not a .docx file, whatever its name says' },
        ]);
      });
    });

    describe('company logos', () => {
      it('stores a PNG, answers 201 in the reference shape and serves it back at the company logo_url', async () => {
        const content = files.png();
        const res = await uploadLogo(fx.editor.rest, fx.companies.acme.id, { name: 'acme.png', content });
        expect(res.status, JSON.stringify(res.body)).to.equal(201);
        expect(referenceResponse('/companies/{company_id}/logo/')(res.body)).to.equal(true);
        expect(res.body.success).to.equal(true);
        const company = await api(server.url, `/v1/companies/${fx.companies.acme.id}/`, {
          token: fx.viewer.rest,
        });
        expect(company.body.logo_url).to.equal(res.body.logo_url);
        expect(company.body.logo_url).to.equal(`${server.url}/v1/companies/${fx.companies.acme.id}/logo/`);
        assertReference('main', 'Company', company.body);

        const served = await fetch(company.body.logo_url, {
          headers: { Authorization: `Bearer ${fx.viewer.rest}` },
        });
        expect(served.status).to.equal(200);
        expect(served.headers.get('content-type')).to.equal('image/png');
        expect(Buffer.from(await served.arrayBuffer()).equals(content)).to.equal(true);
      });

      it('replaces the earlier logo, and records each change in the change log', async () => {
        const companyId = fx.companies.beta.id;
        expect(
          (await uploadLogo(fx.admin.rest, companyId, { name: 'one.png', content: files.png() })).status,
        ).to.equal(201);
        const jpeg = files.jpeg();
        const res = await uploadLogo(fx.admin.rest, companyId, { name: 'two.jpeg', content: jpeg });
        expect(res.status).to.equal(201);
        const served = await fetch(res.body.logo_url, {
          headers: { Authorization: `Bearer ${fx.admin.rest}` },
        });
        expect(served.headers.get('content-type')).to.equal('image/jpeg');
        expect(Buffer.from(await served.arrayBuffer()).equals(jpeg)).to.equal(true);
        expect(
          await t.db('company_logos').where({ company_id: companyId }).count({ n: '*' }).first(),
        ).to.satisfy((r: { n: number | string }) => Number(r.n) === 1);
        const log = await fx.repos.changeLog.of(fx.firmA.id, 'companies', companyId);
        expect(log.map((c) => [c.action, c.changed_by])).to.deep.equal([
          ['update', fx.admin.user.id],
          ['update', fx.admin.user.id],
        ]);
        expect(JSON.parse(log[1]!.changes!).logo).to.deep.equal({
          filename: 'two.jpeg',
          content_type: 'image/jpeg',
          size: jpeg.length,
        });
      });

      it('refuses a viewer with 403, a document type with 415 and a file over 5 MB with 413, writing nothing', async () => {
        const before = await counts();
        const viewer = await uploadLogo(fx.viewer.rest, fx.companies.gamma.id, {
          name: 'g.png',
          content: files.png(),
        });
        expect(viewer.status).to.equal(403);
        expect(viewer.body.code).to.equal('permission_denied');
        const pdf = await uploadLogo(fx.editor.rest, fx.companies.gamma.id, {
          name: 'logo.pdf',
          content: files.pdf(),
        });
        expect(pdf.status).to.equal(415);
        expect(fieldsOf(pdf.body)).to.deep.equal(['file']);
        const big = Buffer.concat([files.webp(), Buffer.alloc(5 * MiB)]);
        const tooBig = await uploadLogo(fx.editor.rest, fx.companies.gamma.id, {
          name: 'big.webp',
          content: big,
        });
        expect(tooBig.status).to.equal(413);
        expect(fieldsOf(tooBig.body)).to.deep.equal(['file']);
        const missing = await uploadLogo(fx.editor.rest, fx.companies.gamma.id, 'no file here');
        expect(missing.status).to.equal(400);
        expect(fieldsOf(missing.body)).to.deep.equal(['file']);
        expect(await counts()).to.deep.equal(before);
        const company = await api(server.url, `/v1/companies/${fx.companies.gamma.id}/`, {
          token: fx.viewer.rest,
        });
        expect(company.body.logo_url).to.equal('https://logos.example/gamma-grid.png');
      });

      it("refuses another firm's company and an inaccessible one as an unknown id, for upload and download", async () => {
        const before = await counts();
        const unknown = await uploadLogo(fx.editor.rest, 'NoSuchCompany123', {
          name: 'x.png',
          content: files.png(),
        });
        expect(unknown.status).to.equal(404);
        const foreign = await uploadLogo(fx.editor.rest, fx.companies.zeta.id, {
          name: 'x.png',
          content: files.png(),
        });
        expect(foreign.status).to.equal(404);
        expect(foreign.body.detail.replace(fx.companies.zeta.id, '<id>')).to.equal(
          unknown.body.detail.replace('NoSuchCompany123', '<id>'),
        );
        const hidden = await uploadLogo(acmeOnly, fx.companies.gamma.id, {
          name: 'x.png',
          content: files.png(),
        });
        expect(hidden.status).to.equal(404);
        expect(await counts()).to.deep.equal(before);

        await uploadLogo(fx.other.rest, fx.companies.zeta.id, { name: 'z.png', content: files.png() });
        const get = (token: string, id: string) => api(server.url, `/v1/companies/${id}/logo/`, { token });
        const foreignGet = await get(fx.editor.rest, fx.companies.zeta.id);
        const unknownGet = await get(fx.editor.rest, 'NoSuchCompany123');
        expect(foreignGet.status).to.equal(404);
        expect(foreignGet.body.detail.replace(fx.companies.zeta.id, '<id>')).to.equal(
          unknownGet.body.detail.replace('NoSuchCompany123', '<id>'),
        );
        expect((await get(fx.other.rest, fx.companies.zeta.id)).status).to.equal(200);
        const anonymous = await fetch(`${server.url}/v1/companies/${fx.companies.zeta.id}/logo/`);
        expect(anonymous.status).to.equal(401);
      });
    });
  });

  describe(`document storage quota: DOCUMENT_STORAGE_QUOTA_MB (${dialect.name}) @db`, function () {
    this.timeout(60_000);
    let t: TestDb;
    let fx: Fixture;
    let server: RunningServer;

    before(async () => {
      t = await dialect.open();
      fx = await buildFixture(t.db);
      server = await startTestServer(t.db, { env: { DOCUMENT_STORAGE_QUOTA_MB: '1' } });
    });
    after(async () => {
      await server?.close();
      await t?.drop();
    });

    /** Bytes the files of a firm's documents take, counted from the tables. */
    const storedBytes = async (firmId: string) =>
      Number(
        (
          await t
            .db('documents')
            .join('document_files', 'document_files.id', 'documents.file_id')
            .where('documents.firm_id', firmId)
            .sum({ n: 'document_files.size' })
            .first()
        )?.n ?? 0,
      );
    const documentCount = async () => Number((await t.db('documents').count({ n: '*' }).first())?.n ?? 0);
    const send = (token: string, companyId: string, content: Buffer) =>
      upload(server.url, '/v1/documents/', token, {
        company_id: companyId,
        file: { name: 'report.pdf', content },
      });

    it("refuses with 413 and the figures a file that would take the firm's documents over the quota, storing nothing", async () => {
      expect(await storedBytes(fx.firmA.id)).to.equal(0);
      const first = await send(fx.editor.rest, fx.companies.acme.id, pdfOf(0.6 * MiB));
      expect(first.status, JSON.stringify(first.body)).to.equal(201);
      const before = await documentCount();
      const over = await send(fx.editor.rest, fx.companies.beta.id, pdfOf(0.5 * MiB));
      expect(over.status).to.equal(413);
      expect(over.body.code).to.equal('payload_too_large');
      expect(over.body.detail).to.equal(
        "file: the firm's documents take 0.6 MB of their 1 MB storage quota; this file of 0.5 MB would " +
          "take them over it; ask the service's operator to raise DOCUMENT_STORAGE_QUOTA_MB",
      );
      expect(fieldsOf(over.body)).to.deep.equal(['file']);
      expect(await documentCount()).to.equal(before);
      // What fits is still stored, up to the quota exactly.
      const rest = await send(
        fx.editor.rest,
        fx.companies.beta.id,
        pdfOf(MiB - (await storedBytes(fx.firmA.id))),
      );
      expect(rest.status, JSON.stringify(rest.body)).to.equal(201);
      expect(await storedBytes(fx.firmA.id)).to.equal(MiB);
    });

    it('refuses from the Content-Length, while the file is still being sent, a body that cannot fit', async () => {
      const before = await documentCount();
      const total = 4 * MiB;
      const answer = await answerWhileSending(
        server.url,
        '/v1/documents/',
        { ...multipart, Authorization: `Bearer ${fx.editor.rest}` },
        fieldPart('company_id', fx.companies.acme.id) + filePart('filename="big.pdf"'),
        total,
      );
      expect(answer.status).to.equal(413);
      expect(answer.body.code).to.equal('payload_too_large');
      expect(answer.body.detail).to.match(
        /take [\d.]+ MB of their 1 MB storage quota; this file of at least 2\.\d+ MB/,
      );
      expect(answer.sent).to.be.below(total);
      expect(await documentCount()).to.equal(before);
    });

    it('lets at most the uploads that fit through when they arrive together', async () => {
      // Firm B starts empty: five uploads of 0.3 MB race for its 1 MB; three fit.
      expect(await storedBytes(fx.firmB.id)).to.equal(0);
      const answers = await Promise.all(
        Array.from({ length: 5 }, () => send(fx.other.rest, fx.companies.zeta.id, pdfOf(0.3 * MiB))),
      );
      const statuses = answers.map((a) => a.status).sort();
      expect(statuses, JSON.stringify(answers.map((a) => a.body))).to.deep.equal([201, 201, 201, 413, 413]);
      expect(await storedBytes(fx.firmB.id)).to.be.at.most(MiB);
    });
  });
}
