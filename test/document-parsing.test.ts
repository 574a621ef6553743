import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { expect } from 'chai';
import type { Knex } from 'knex';
import { systemClock } from '../core/clock.ts';
import { textPages } from '../core/text-pages.ts';
import { newId } from '../db/ids.ts';
import { openDb } from '../db/knex.ts';
import { documentParsingRepo } from '../db/repos/document-parsing.ts';
import { createRepos } from '../db/repos/index.ts';
import { DEMO, seedDemo } from '../db/seeds/demo.ts';
import { docxFile, odsFile, pdfFile, pptxFile, xlsxFile } from '../db/seeds/office-files.ts';
import { createParseWorker, type ParseWorker } from '../parsing/worker.ts';
import type { RunningServer } from '../server/http.ts';
import { createLogger } from '../server/logger.ts';
import { finishParse } from '../services/document-parsing.ts';
import { type ChildServer, spawnServer } from './helpers/child-server.ts';
import { dialects, postgresUrl, sqliteTestDb, type TestDb } from './helpers/db.ts';
import { addDocument, type NewDocument } from './helpers/documents.ts';
import { buildFixture, type Fixture, issueToken } from './helpers/fixture.ts';
import { mcpClient } from './helpers/mcp.ts';
import { api, startTestServer } from './helpers/server.ts';

const silent = createLogger('silent');

const SHEETS = [
  {
    name: 'P&L',
    rows: [
      ['Month', 'Revenue'],
      ['2026-01', 1200.5],
      ['2026-02', 1300],
    ],
  },
  {
    name: 'Team',
    rows: [
      ['Month', 'Headcount'],
      ['2026-02', 14],
    ],
  },
];
const SHEETS_TEXT =
  'Sheet: P&L\nMonth\tRevenue\n2026-01\t1200.5\n2026-02\t1300\n\nSheet: Team\nMonth\tHeadcount\n2026-02\t14';

function worker(db: Knex, leaseMs = 60_000): ParseWorker {
  return createParseWorker({
    repo: documentParsingRepo(db),
    finish: (job, outcome, now) => finishParse(createRepos(db), job, outcome, now),
    clock: systemClock,
    logger: silent,
    pollMs: 50,
    leaseMs,
  });
}

/** Runs a worker until the queue is empty; the ids it finished. */
async function drain(w: ParseWorker): Promise<string[]> {
  const done: string[] = [];
  for (;;) {
    const batch = await w.runOnce();
    if (batch.length === 0) return done;
    done.push(...batch);
  }
}

async function stateOf(db: Knex, id: string) {
  return (await db('documents')
    .where('id', id)
    .first('parse_state', 'parsed_at', 'parse_attempts', 'parse_note')) as {
    parse_state: string;
    parsed_at: string | null;
    parse_attempts: number;
    parse_note: string | null;
  };
}

async function textOf(db: Knex, id: string): Promise<string | undefined> {
  return ((await db('document_texts').where('document_id', id).first('text')) as { text: string } | undefined)
    ?.text;
}

for (const dialect of dialects) {
  describe(`document parsing (${dialect.name}) @db`, function () {
    this.timeout(60_000);
    let t: TestDb;
    let fx: Fixture;

    before(async () => {
      t = await dialect.open();
      fx = await buildFixture(t.db);
    });
    after(async () => {
      await t?.drop();
    });

    const doc = (name: string, body: Buffer, extra: Partial<NewDocument> = {}) =>
      addDocument(fx.repos, { company: fx.companies.acme, firmId: fx.firmA.id, name, body, ...extra });

    it('extracts the text of PDF, DOCX, XLSX, ODS, PPTX and plain text files', async () => {
      const ids = {
        pdf: await doc('deck.pdf', pdfFile([['Board deck (draft)', 'Revenue grew'], ['Second page']])),
        docx: await doc('letter.docx', docxFile(['# Letter', 'Dear shareholders & friends'])),
        xlsx: await doc('kpis.xlsx', xlsxFile(SHEETS)),
        ods: await doc('kpis.ods', odsFile(SHEETS)),
        pptx: await doc('pitch.pptx', pptxFile([['Pitch', 'Market'], ['Team']])),
        text: await doc('notes.md', Buffer.from('# Notes\r\nPlain text.\r\n'), {
          contentType: 'text/markdown',
        }),
      };
      const done = await drain(worker(t.db));
      expect(done).to.have.members(Object.values(ids));
      expect(await textOf(t.db, ids.pdf)).to.equal('Board deck (draft)\nRevenue grew\n\nSecond page');
      expect(await textOf(t.db, ids.docx)).to.equal('Letter\n\nDear shareholders & friends');
      expect(await textOf(t.db, ids.xlsx)).to.equal(SHEETS_TEXT);
      expect(await textOf(t.db, ids.ods)).to.equal(SHEETS_TEXT);
      expect(await textOf(t.db, ids.pptx)).to.equal('Slide 1\nPitch\nMarket\n\nSlide 2\nTeam');
      expect(await textOf(t.db, ids.text)).to.equal('# Notes\nPlain text.');
      for (const id of Object.values(ids)) {
        const s = await stateOf(t.db, id);
        expect(s.parse_state, id).to.equal('completed');
        expect(s.parsed_at).to.be.a('string');
        expect(Number(s.parse_attempts)).to.equal(1);
      }
      const pdf = await t.db('document_texts').where('document_id', ids.pdf).first('source_pages', 'format');
      expect({ ...pdf, source_pages: Number(pdf.source_pages) }).to.deep.equal({
        source_pages: 2,
        format: 'pdf',
      });
    });

    it('ends images, broken files and archives that are no document not-parseable, with the reason', async () => {
      const ids = {
        png: await doc('scan.png', Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 0, 0]), {
          contentType: 'image/png',
        }),
        brokenPdf: await doc('broken.pdf', Buffer.from('%PDF-1.4\nnot really a pdf')),
        brokenDocx: await doc('broken.docx', Buffer.concat([docxFile(['x']).subarray(0, 60)])),
        emptyPdf: await doc('blank.pdf', pdfFile([[]])),
        binary: await doc('data.bin', Buffer.from([0, 1, 2, 3, 250, 251])),
      };
      await drain(worker(t.db));
      for (const [key, id] of Object.entries(ids)) {
        const s = await stateOf(t.db, id);
        expect(s.parse_state, key).to.equal('not-parseable');
        expect(s.parsed_at, key).to.be.a('string');
        expect(s.parse_note, key).to.be.a('string');
        expect(await textOf(t.db, id), key).to.equal(undefined);
      }
      expect((await stateOf(t.db, ids.png)).parse_note).to.equal('an image (no text to extract)');
    });

    it('asks for input on a password-protected PDF', async () => {
      const id = await doc('locked.pdf', pdfFile([['secret']], { locked: true }));
      await drain(worker(t.db));
      expect(await stateOf(t.db, id)).to.include({
        parse_state: 'needs-input',
        parse_note: 'the PDF needs a password',
      });
      expect((await stateOf(t.db, id)).parsed_at).to.be.a('string');
      expect(await textOf(t.db, id)).to.equal(undefined);
    });

    it('takes a job again once its lease ran out, and gives up on one whose attempts ran out', async () => {
      const lapsed = await doc('lapsed.txt', Buffer.from('picked up again'), { contentType: 'text/plain' });
      const exhausted = await doc('exhausted.txt', Buffer.from('never finishes'), {
        contentType: 'text/plain',
      });
      const held = await doc('held.txt', Buffer.from('someone else has it'), { contentType: 'text/plain' });
      const past = '2020-01-01T00:00:00.000Z';
      await t.db('documents').where('id', lapsed).update({
        parse_state: 'in-progress',
        parse_claim: 'dead',
        parse_claimed_until: past,
        parse_attempts: 1,
      });
      await t.db('documents').where('id', exhausted).update({
        parse_state: 'in-progress',
        parse_claim: 'dead',
        parse_claimed_until: past,
        parse_attempts: 3,
      });
      await t.db('documents').where('id', held).update({
        parse_state: 'in-progress',
        parse_claim: 'alive',
        parse_claimed_until: '2999-01-01T00:00:00.000Z',
        parse_attempts: 1,
      });
      const done = await drain(worker(t.db));
      expect(done).to.deep.equal([lapsed]);
      expect(await stateOf(t.db, lapsed)).to.include({ parse_state: 'completed' });
      expect(Number((await stateOf(t.db, lapsed)).parse_attempts)).to.equal(2);
      expect(await stateOf(t.db, exhausted)).to.include({
        parse_state: 'not-parseable',
        parse_note: 'gave up after 3 attempts that did not finish',
      });
      expect(await stateOf(t.db, held)).to.include({ parse_state: 'in-progress' });
      await t.db('documents').where('id', held).update({ parse_state: 'completed' });
    });

    it('ignores the result of a worker whose claim was taken over after its lease ran out', async () => {
      const id = await doc('contested.txt', Buffer.from('contested'), { contentType: 'text/plain' });
      const repo = documentParsingRepo(t.db);
      const [slow] = await repo.claim({
        now: new Date('2026-06-01T00:00:00Z'),
        leaseMs: 1000,
        limit: 1,
        maxAttempts: 3,
      });
      const [fast] = await repo.claim({
        now: new Date('2026-06-01T00:00:02Z'),
        leaseMs: 1000,
        limit: 1,
        maxAttempts: 3,
      });
      expect(slow!.id).to.equal(id);
      expect(fast!.id).to.equal(id);
      const outcome = { state: 'completed', text: 'from the slow one', format: 'text', pages: null } as const;
      expect(await finishParse(createRepos(t.db), slow!, outcome, new Date())).to.equal(false);
      expect(await textOf(t.db, id)).to.equal(undefined);
      expect(
        await finishParse(createRepos(t.db), fast!, { ...outcome, text: 'from the fast one' }, new Date()),
      ).to.equal(true);
      expect(await textOf(t.db, id)).to.equal('from the fast one');
    });

    if (dialect.name === 'postgres') {
      it('two workers on one database never parse the same document twice', async () => {
        const ids: string[] = [];
        for (let i = 0; i < 16; i++) {
          ids.push(
            await doc(`race-${i}.txt`, Buffer.from(`race document ${i}`), { contentType: 'text/plain' }),
          );
        }
        const nodeA = openDb(t.url);
        const nodeB = openDb(t.url);
        try {
          const [a, b] = await Promise.all([drain(worker(nodeA)), drain(worker(nodeB))]);
          expect(a.filter((id) => b.includes(id))).to.deep.equal([]);
          expect([...a, ...b]).to.have.members(ids);
          const rows = await t.db('documents').whereIn('id', ids).select('parse_state', 'parse_attempts');
          for (const r of rows)
            expect({ ...r, parse_attempts: Number(r.parse_attempts) }).to.deep.equal({
              parse_state: 'completed',
              parse_attempts: 1,
            });
        } finally {
          await nodeA.destroy();
          await nodeB.destroy();
        }
      });
    }

    describe('get_document_content and search_documents', () => {
      let server: RunningServer;
      const clients: Client[] = [];
      const ids: Record<string, string> = {};
      let longText = '';
      let companyViewer: string;

      before(async () => {
        const { beta, zeta } = fx.companies;
        const paragraph = (i: number) =>
          `Paragraph ${i}: the quarterly numbers in detail, line after line of them.`;
        longText = Array.from({ length: 500 }, (_, i) => paragraph(i)).join('\n\n');
        ids.long = await doc('long.txt', Buffer.from(longText), { contentType: 'text/plain' });
        ids.image = await doc('photo.png', Buffer.from([0x89, 0x50, 0x4e, 0x47, 1, 2, 3]), {
          contentType: 'image/png',
        });
        ids.churn = await doc('churn.docx', docxFile(['Churn, churn and more churn this quarter.']));
        ids.betaChurn = await addDocument(fx.repos, {
          company: beta,
          firmId: fx.firmA.id,
          name: 'beta.pdf',
          body: pdfFile([
            ['The board discussed pricing, hiring, the office move, the roadmap and churn at length.'],
          ]),
        });
        ids.zetaChurn = await addDocument(fx.repos, {
          company: zeta,
          firmId: fx.firmB.id,
          name: 'zeta.txt',
          body: Buffer.from('Zeta churn churn churn is a secret.'),
          contentType: 'text/plain',
        });
        await drain(worker(t.db));
        ids.waiting = await doc('waiting.pdf', pdfFile([['not parsed yet']]));
        // A viewer with documents who sees Beta only.
        const user = {
          ...fx.viewer.user,
          id: newId(),
          email: 'beta-only@alpha.test',
          all_companies: false,
        };
        await fx.repos.users.create(user, [beta.id]);
        companyViewer = await issueToken(fx.repos, user);
        server = await startTestServer(t.db);
      });
      after(async () => {
        for (const c of clients) await c.close();
        await server?.close();
      });

      it('returns the text a page at a time, cut at paragraph ends', async () => {
        const pages = textPages(longText);
        expect(pages.length).to.be.greaterThan(2);
        const first = await api(server.url, `/v1/documents/${ids.long}/content/`, { token: fx.admin.rest });
        expect(first.status).to.equal(200);
        expect(first.body).to.include({
          parse_state: 'completed',
          page: 1,
          total_pages: pages.length,
          message: null,
        });
        expect(first.body.text.length).to.be.at.most(12_000);
        expect(first.body.text).to.match(/^Paragraph 0: .*them\.$/s);
        const second = await api(server.url, `/v1/documents/${ids.long}/content/?page=2`, {
          token: fx.admin.rest,
        });
        expect(second.body.text).to.equal(pages[1]);
        expect(second.body.text).to.match(/^Paragraph \d+:/);
        expect(pages.join('\n\n')).to.equal(longText);
      });

      it('answers 404 past the last page and 400 for a page that is not a positive integer', async () => {
        const past = await api(server.url, `/v1/documents/${ids.long}/content/?page=99`, {
          token: fx.admin.rest,
        });
        expect(past.status).to.equal(404);
        expect(past.body.detail).to.match(/past the last page/);
        for (const page of ['0', 'x', '1.5']) {
          const bad = await api(server.url, `/v1/documents/${ids.long}/content/?page=${page}`, {
            token: fx.admin.rest,
          });
          expect(bad.status, page).to.equal(400);
          expect(bad.body.errors.map((e: { field: string }) => e.field)).to.deep.equal(['page']);
        }
      });

      it('says why there is no text for a document not parsed yet or not parseable', async () => {
        const waiting = await api(server.url, `/v1/documents/${ids.waiting}/content/`, {
          token: fx.admin.rest,
        });
        expect(waiting.body).to.include({ parse_state: 'not-started', total_pages: 0, text: '' });
        expect(waiting.body.message).to.match(/queued for parsing/);
        const image = await api(server.url, `/v1/documents/${ids.image}/content/`, { token: fx.admin.rest });
        expect(image.body).to.include({ parse_state: 'not-parseable', total_pages: 0, text: '' });
        expect(image.body.message).to.equal(
          'No text can be read from this file: an image (no text to extract).',
        );
        const locked = await doc('locked-too.pdf', pdfFile([['secret']], { locked: true }));
        await drain(worker(t.db));
        const needs = await api(server.url, `/v1/documents/${locked}/content/`, { token: fx.admin.rest });
        expect(needs.body).to.include({
          parse_state: 'needs-input',
          text: '',
          message: 'Parsing needs input: the PDF needs a password.',
        });
      });

      it('refuses callers without documents, and hides other firms and companies as unknown ids', async () => {
        const denied = await api(server.url, `/v1/documents/${ids.churn}/content/`, {
          token: fx.restricted.rest,
        });
        expect(denied.status).to.equal(403);
        const otherFirm = await api(server.url, `/v1/documents/${ids.zetaChurn}/content/`, {
          token: fx.admin.rest,
        });
        expect(otherFirm.status).to.equal(404);
        const otherCompany = await api(server.url, `/v1/documents/${ids.churn}/content/`, {
          token: companyViewer,
        });
        expect(otherCompany.status).to.equal(404);
        const unknown = await api(server.url, '/v1/documents/nope/content/', { token: fx.admin.rest });
        expect(unknown.status).to.equal(404);
        const search = await api(server.url, '/v1/documents/search/?query=churn', {
          token: fx.restricted.rest,
        });
        expect(search.status).to.equal(403);
      });

      it('ranks matches best first, with the passage, only among documents the caller may see', async () => {
        const found = await api(server.url, '/v1/documents/search/?query=churn', { token: fx.admin.rest });
        expect(found.status).to.equal(200);
        expect(found.body.count).to.equal(2);
        expect(found.body.results.map((r: { id: string }) => r.id)).to.deep.equal([ids.churn, ids.betaChurn]);
        expect(found.body.results[0]).to.deep.equal({
          id: ids.churn,
          name: 'churn.docx',
          company_id: fx.companies.acme.id,
          company_name: 'Acme Analytics',
          passage: '«Churn», «churn» and more «churn» this quarter.',
        });
        const other = await api(server.url, '/v1/documents/search/?query=churn', { token: fx.other.rest });
        expect(other.body.results.map((r: { id: string }) => r.id)).to.deep.equal([ids.zetaChurn]);
        const limited = await api(server.url, '/v1/documents/search/?query=churn', { token: companyViewer });
        expect(limited.body.results.map((r: { id: string }) => r.id)).to.deep.equal([ids.betaChurn]);
        const filtered = await api(
          server.url,
          `/v1/documents/search/?query=churn&company_id=${fx.companies.beta.id}`,
          { token: fx.admin.rest },
        );
        expect(filtered.body.results.map((r: { id: string }) => r.id)).to.deep.equal([ids.betaChurn]);
        const all = await api(server.url, '/v1/documents/search/?query=churn%20pricing', {
          token: fx.admin.rest,
        });
        expect(all.body.results.map((r: { id: string }) => r.id)).to.deep.equal([ids.betaChurn]);
        const none = await api(server.url, '/v1/documents/search/?query=unicorn', { token: fx.admin.rest });
        expect(none.body).to.include({ count: 0 });
        const hidden = await api(
          server.url,
          `/v1/documents/search/?query=churn&company_id=${fx.companies.zeta.id}`,
          { token: fx.admin.rest },
        );
        expect(hidden.status).to.equal(404);
      });

      it('serves both tools over MCP', async () => {
        const client = await mcpClient(server.url, fx.admin.pat);
        clients.push(client);
        const content = await client.callTool({
          name: 'get_document_content',
          arguments: { document_id: ids.betaChurn },
        });
        expect(content.isError, JSON.stringify(content.content)).to.not.equal(true);
        expect(content.structuredContent).to.include({ parse_state: 'completed', total_pages: 1 });
        expect((content.structuredContent as { text: string }).text).to.match(/^The board discussed pricing/);
        const search = await client.callTool({ name: 'search_documents', arguments: { query: 'roadmap' } });
        expect(
          (search.structuredContent as { results: { id: string }[] }).results.map((r) => r.id),
        ).to.deep.equal([ids.betaChurn]);
      });
    });
  });

  describe(`a parse cut short by SIGKILL (${dialect.name}) @db`, function () {
    this.timeout(180_000);
    let t: TestDb;
    let fx: Fixture;
    let server: ChildServer | undefined;
    const env = { DOCUMENT_PARSE_INTERVAL_SECONDS: '0.1', DOCUMENT_PARSE_LEASE_SECONDS: '3' };

    before(async () => {
      t = await dialect.open();
      fx = await buildFixture(t.db);
    });
    after(async () => {
      await server?.kill();
      await t?.drop();
    });

    it('is completed by the restarted server once the lease of the dead one runs out', async () => {
      // Long enough that the parse is still running when the server is killed.
      const paragraphs = Array.from({ length: 20_000 }, (_, i) => `Paragraph ${i} of a long annual report.`);
      const id = await addDocument(fx.repos, {
        company: fx.companies.acme,
        firmId: fx.firmA.id,
        name: 'annual-report.docx',
        body: docxFile(paragraphs),
      });
      server = await spawnServer(t.url, env);
      const deadline = Date.now() + 30_000;
      while ((await stateOf(t.db, id)).parse_state !== 'in-progress') {
        if (Date.now() > deadline) throw new Error(`the parse did not start: ${server.stderr()}`);
        await new Promise((r) => setTimeout(r, 20));
      }
      await server.kill();
      expect(await stateOf(t.db, id)).to.include({ parse_state: 'in-progress' });
      expect(await textOf(t.db, id)).to.equal(undefined);

      server = await spawnServer(t.url, env);
      const until = Date.now() + 120_000;
      while ((await stateOf(t.db, id)).parse_state === 'in-progress') {
        if (Date.now() > until) throw new Error(`the parse did not complete: ${server.stderr()}`);
        await new Promise((r) => setTimeout(r, 100));
      }
      const s = await stateOf(t.db, id);
      expect(s.parse_state).to.equal('completed');
      expect(Number(s.parse_attempts)).to.equal(2);
      expect(await textOf(t.db, id)).to.equal(paragraphs.join('\n\n'));
      await server.stop();
      server = undefined;
    });
  });
}

describe('the demo seed end to end (sqlite) @db', function () {
  this.timeout(180_000);
  let t: TestDb;
  let server: RunningServer;
  let client: Client | undefined;

  before(async () => {
    t = await sqliteTestDb();
    await seedDemo(t.db);
    server = await startTestServer(t.db, {
      env: { DOCUMENT_PARSING: 'on', DOCUMENT_PARSE_INTERVAL_SECONDS: '0.1' },
    });
  });
  after(async () => {
    await client?.close();
    await server?.close();
    await t?.drop();
  });

  it('parses the seeded PDF, and get_document_content over MCP returns its text', async () => {
    const repos = createRepos(t.db);
    const user = (await repos.users.getByEmail(DEMO.email))!;
    const deck = await t
      .db('documents')
      .where('firm_id', user.firm_id)
      .where('name', 'like', 'Board deck %.pdf')
      .orderBy('uploaded_at')
      .first('id', 'company_id');
    expect(deck, 'a seeded board deck').to.not.equal(undefined);
    const deadline = Date.now() + 60_000;
    while ((await stateOf(t.db, deck.id)).parse_state !== 'completed') {
      if (Date.now() > deadline)
        throw new Error(`not parsed: ${JSON.stringify(await stateOf(t.db, deck.id))}`);
      await new Promise((r) => setTimeout(r, 100));
    }
    const company = await t.db('companies').where('id', deck.company_id).first('name');
    client = await mcpClient(server.url, await issueToken(repos, user));
    const res = await client.callTool({ name: 'get_document_content', arguments: { document_id: deck.id } });
    expect(res.isError, JSON.stringify(res.content)).to.not.equal(true);
    const content = res.structuredContent as { text: string; parse_state: string };
    expect(content.parse_state).to.equal('completed');
    expect(content.text).to.match(new RegExp(`^${company.name}: board deck, Q\\d 20\\d\\d`));
    expect(content.text).to.include('Revenue last month:');
    for (const name of ['Quarterly letter %.docx', 'KPI workbook %.xlsx']) {
      const row = await t
        .db('documents')
        .where('name', 'like', name)
        .where('company_id', deck.company_id)
        .first('id');
      while ((await stateOf(t.db, row.id)).parse_state !== 'completed') {
        if (Date.now() > deadline) throw new Error(`${name} not parsed`);
        await new Promise((r) => setTimeout(r, 100));
      }
    }
  });
});

// Without PostgreSQL the two-worker race is not run; the claim is still exercised on SQLite above.
if (!postgresUrl) describe('document parsing on PostgreSQL', () => it.skip('needs TEST_DATABASE_URL'));

describe('a PDF uploaded over REST, read over MCP (sqlite) @db', function () {
  this.timeout(120_000);
  let t: TestDb;
  let fx: Fixture;
  let server: RunningServer;
  let client: Client | undefined;

  before(async () => {
    t = await sqliteTestDb();
    fx = await buildFixture(t.db);
    server = await startTestServer(t.db, {
      env: { DOCUMENT_PARSING: 'on', DOCUMENT_PARSE_INTERVAL_SECONDS: '0.1' },
    });
  });
  after(async () => {
    await client?.close();
    await server?.close();
    await t?.drop();
  });

  it('POST /v1/documents/ then get_document_content returns the text of the file sent', async () => {
    const marker = `Pipeline review ${newId()}`;
    const form = new FormData();
    form.append('company_id', fx.companies.acme.id);
    const pdf = pdfFile([[marker, 'Gross margin held at 71 percent.']]);
    form.append('file', new Blob([new Uint8Array(pdf)], { type: 'application/pdf' }), 'review.pdf');
    const res = await fetch(`${server.url}/v1/documents/`, {
      method: 'POST',
      headers: { Authorization: `Bearer ${fx.admin.pat}` },
      body: form,
    });
    const body = (await res.json()) as { document_id: string };
    expect(res.status, JSON.stringify(body)).to.equal(201);

    client = await mcpClient(server.url, fx.admin.pat);
    const deadline = Date.now() + 60_000;
    for (;;) {
      const read = await client.callTool({
        name: 'get_document_content',
        arguments: { document_id: body.document_id },
      });
      expect(read.isError, JSON.stringify(read.content)).to.not.equal(true);
      const content = read.structuredContent as { parse_state: string; text?: string };
      if (content.parse_state === 'completed') {
        expect(content.text).to.include(marker);
        expect(content.text).to.include('Gross margin held at 71 percent.');
        break;
      }
      expect(content.parse_state).to.be.oneOf(['not-started', 'in-progress']);
      if (Date.now() > deadline) throw new Error(`not parsed in time: ${JSON.stringify(content)}`);
      await new Promise((r) => setTimeout(r, 100));
    }
  });
});
