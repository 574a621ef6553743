import { expect } from 'chai';
import { systemClock } from '../core/clock.ts';
import { documentParsingRepo } from '../db/repos/document-parsing.ts';
import { createRepos } from '../db/repos/index.ts';
import { docxFile, pdfFile } from '../db/seeds/office-files.ts';
import { runParse } from '../parsing/runner.ts';
import { createParseWorker } from '../parsing/worker.ts';
import type { RunningServer } from '../server/http.ts';
import { createLogger } from '../server/logger.ts';
import { finishParse } from '../services/document-parsing.ts';
import { dialects, type TestDb } from './helpers/db.ts';
import { addDocument } from './helpers/documents.ts';
import { buildFixture, type Fixture } from './helpers/fixture.ts';
import { pdfDrawings, pdfLargeScan } from './helpers/hostile-files.ts';
import { childProcesses, readingLargePdf, running, waitFor } from './helpers/processes.ts';
import { api, startTestServer } from './helpers/server.ts';

const file = (name: string, content: Buffer) => ({
  content,
  content_type: 'application/octet-stream',
  filename: name,
});

/**
 * A 2,000-page PDF of vector drawings, 1 MB: reading it takes seconds (ten or more on a busy machine)
 * and some 300 MB. Made once, when first needed.
 */
let drawings: Buffer | undefined;
const slowPdf = () => {
  drawings ??= pdfDrawings();
  return drawings;
};

/** Room enough that only the limit a test sets (or a kill) ends the slow parse. */
const ROOMY = { timeoutMs: 120_000, memoryMb: 1024 };

describe('the parse runner', function () {
  this.timeout(60_000);

  it('parses a file in a process of its own and returns its text', async () => {
    const run = runParse(file('letter.docx', docxFile(['Dear shareholders'])), {
      timeoutMs: 20_000,
      memoryMb: 256,
    });
    expect(run.pid).to.be.a('number').and.not.equal(process.pid);
    expect(await run.outcome).to.deep.include({ state: 'completed', text: 'Dear shareholders' });
    expect(running(run.pid!)).to.equal(false);
  });

  it('kills a parse that runs past the time limit and ends it not-parseable, naming the limit', async () => {
    const started = Date.now();
    const run = runParse(file('drawings.pdf', slowPdf()), { ...ROOMY, timeoutMs: 1000 });
    expect(await run.outcome).to.deep.equal({ state: 'not-parseable', reason: 'took longer than 1 s' });
    expect(Date.now() - started).to.be.below(15_000);
    expect(running(run.pid!)).to.equal(false);
  });

  it('kills a parse whose process passes the memory cap and ends it not-parseable, naming the cap', async () => {
    const limits = { timeoutMs: 60_000, memoryMb: 140 };
    // A one-page PDF fits the cap (the parser process alone is some 100 MB). A 30 MB scan is held
    // whole, more than once, while it is read: some 180 MB, whenever the garbage is collected. (The
    // drawings need more only while garbage waits: under a small heap they can finish within 160 MB.)
    const small = runParse(file('deck.pdf', pdfFile([['Board deck']])), limits);
    expect(await small.outcome).to.deep.include({ state: 'completed', text: 'Board deck' });
    const run = runParse(file('scan.pdf', pdfLargeScan(30)), limits);
    expect(await run.outcome).to.deep.equal({ state: 'not-parseable', reason: 'needed more than 140 MB' });
    expect(running(run.pid!)).to.equal(false);
  });

  it('reports a parse whose process someone else killed as crashed, not as the document failing', async () => {
    const run = runParse(file('drawings.pdf', slowPdf()), ROOMY);
    await readingLargePdf(run.pid!);
    process.kill(run.pid!, 'SIGKILL');
    expect(await run.outcome).to.deep.equal({
      state: 'crashed',
      detail: 'the parser process died from SIGKILL',
    });
  });

  it('stop() kills the parse and says it was stopped', async () => {
    const run = runParse(file('drawings.pdf', slowPdf()), ROOMY);
    await readingLargePdf(run.pid!);
    run.stop();
    expect(await run.outcome).to.deep.equal({ state: 'stopped' });
    expect(running(run.pid!)).to.equal(false);
  });
});

for (const dialect of dialects) {
  describe(`the parse worker's processes (${dialect.name}) @db`, function () {
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

    const addPlain = (name: string, body: Buffer) =>
      addDocument(fx.repos, { company: fx.companies.acme, firmId: fx.firmA.id, name, body });

    const stateOf = async (id: string) => {
      const row = await t
        .db('documents')
        .where('id', id)
        .first('parse_state', 'parse_attempts', 'parse_note');
      return { ...row, parse_attempts: Number(row.parse_attempts) };
    };

    const worker = (maxAttempts = 3) =>
      createParseWorker({
        repo: documentParsingRepo(t.db),
        finish: (job, outcome, now) => finishParse(createRepos(t.db), job, outcome, now),
        clock: systemClock,
        logger: createLogger('silent'),
        pollMs: 50,
        leaseMs: 60_000,
        maxAttempts,
        limits: ROOMY,
      });

    it('stop() kills the parse under way and hands its job back, its attempt not counted', async () => {
      const id = await addPlain('drawings.pdf', slowPdf());
      const w = worker();
      w.start();
      const pid = await waitFor('the parser process', () => childProcesses(process.pid, 'parse-child')[0]);
      await readingLargePdf(pid);
      await w.stop();
      expect(running(pid)).to.equal(false);
      expect(await stateOf(id)).to.deep.equal({
        parse_state: 'not-started',
        parse_attempts: 0,
        parse_note: null,
      });
      await t.db('documents').where('id', id).delete();
    });

    it('takes a document again when its parser is killed from outside, until its attempts run out', async () => {
      const id = await addPlain('drawings.pdf', slowPdf());
      const w = worker(2);
      w.start();
      try {
        for (let attempt = 1; attempt <= 2; attempt++) {
          const pid = await waitFor('a parser process', () => childProcesses(process.pid, 'parse-child')[0]);
          await readingLargePdf(pid);
          process.kill(pid, 'SIGKILL');
          await waitFor('the process to end', () => (running(pid) ? undefined : true));
        }
        const ended = await waitFor('the document to end', async () => {
          const s = await stateOf(id);
          return s.parse_state === 'not-parseable' ? s : undefined;
        });
        expect(ended).to.deep.equal({
          parse_state: 'not-parseable',
          parse_attempts: 2,
          parse_note: 'gave up after 2 attempts that did not finish',
        });
      } finally {
        await w.stop();
      }
    });

    it('keeps the note of a completed document cut short, and get_document_content shows it', async () => {
      const id = await addPlain('long.txt', Buffer.from('x'));
      const repo = documentParsingRepo(t.db);
      const [job] = await repo.claim({ now: new Date(), leaseMs: 60_000, limit: 1, maxAttempts: 3 });
      expect(job!.id).to.equal(id);
      const cut = 'The text was cut at 1,000,000 characters.';
      expect(
        await finishParse(
          createRepos(t.db),
          job!,
          { state: 'completed', text: 'The start.', format: 'text', pages: null, cut },
          new Date(),
        ),
      ).to.equal(true);
      expect((await stateOf(id)).parse_note).to.equal(cut);
      let server: RunningServer | undefined;
      try {
        server = await startTestServer(t.db);
        const res = await api(server.url, `/v1/documents/${id}/content/`, { token: fx.admin.rest });
        expect(res.status).to.equal(200);
        expect(res.body).to.include({ parse_state: 'completed', text: 'The start.', message: cut });
      } finally {
        await server?.close();
      }
    });
  });
}
