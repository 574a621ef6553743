import { readdirSync, readFileSync } from 'node:fs';
import { dirname, join, normalize, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { expect } from 'chai';
import { docxFile, pdfFile, xlsxFile } from '../db/seeds/office-files.ts';
import { type ChildServer, spawnServer } from './helpers/child-server.ts';
import { dialects, type TestDb } from './helpers/db.ts';
import { addDocument } from './helpers/documents.ts';
import { buildFixture, type Fixture } from './helpers/fixture.ts';
import {
  docxBomb,
  docxNestedSdt,
  docxSpaceRuns,
  docxUnderstatedZip,
  odsRepeatedCells,
  pdfDrawings,
  pdfFlateBomb,
  pdfPages,
  spaceRunParagraphs,
  xlsxCorners,
  xlsxGrid,
  zipOfHtmlAndExe,
} from './helpers/hostile-files.ts';
import { childProcesses, readingLargePdf, running, waitFor } from './helpers/processes.ts';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');

const TYPES: Record<string, string> = {
  pdf: 'application/pdf',
  docx: 'application/vnd.openxmlformats-officedocument.wordprocessingml.document',
  xlsx: 'application/vnd.openxmlformats-officedocument.spreadsheetml.sheet',
  ods: 'application/vnd.oasis.opendocument.spreadsheet',
};

const HARMLESS: Record<string, { body: Buffer; text: string }> = {
  'letter.docx': {
    body: docxFile(['Dear shareholders', 'Revenue grew 12 percent.']),
    text: 'Dear shareholders\n\nRevenue grew 12 percent.',
  },
  'kpis.xlsx': {
    body: xlsxFile([
      {
        name: 'KPIs',
        rows: [
          ['Month', 'Revenue'],
          ['2026-01', 1200],
        ],
      },
    ]),
    text: 'Sheet: KPIs\nMonth\tRevenue\n2026-01\t1200',
  },
  'deck.pdf': {
    body: pdfFile([['Board deck', 'Margin held at 71 percent.']]),
    text: 'Board deck\nMargin held at 71 percent.',
  },
};
const NOTES = 'Plain notes from the board call.';

const CELLS_CUT = 'only the first 200,000 cells of the spreadsheet were read';
/** How a poison document ends: refused, its text cut short (saying so), or all of its (small) text read. */
type Ending =
  | { state: 'not-parseable'; reason: string }
  | { state: 'completed'; cut: string }
  | { state: 'completed'; text: string };

/** Files that once froze the server or exhausted its memory, each valid as its kind, and how each ends. */
const POISON: Record<string, { make: () => Buffer; ends: Ending }> = {
  'repeated-cells.ods': { make: () => odsRepeatedCells(), ends: { state: 'completed', cut: CELLS_CUT } },
  'nested-controls.docx': {
    make: () => docxNestedSdt(),
    ends: { state: 'not-parseable', reason: 'word/document.xml nests elements more than 10,000 deep' },
  },
  'flate-bomb.pdf': {
    make: () => pdfFlateBomb(),
    ends: { state: 'not-parseable', reason: 'a PDF with a compressed stream that inflates beyond 32 MB' },
  },
  'corners.xlsx': {
    make: () => xlsxCorners(),
    ends: {
      state: 'completed',
      text: [1, 2, 3, 4].map((n) => `Sheet: Sheet${n}\nfirst\n\n${'\t'.repeat(64)}last`).join('\n\n'),
    },
  },
  'many-cells.xlsx': { make: () => xlsxGrid(4_000, 100), ends: { state: 'completed', cut: CELLS_CUT } },
  'many-pages.pdf': {
    make: () => pdfPages(6_000),
    ends: { state: 'completed', cut: 'only the first 2,000 of 6,000 pages were read' },
  },
  'space-runs.docx': {
    make: () => docxSpaceRuns(),
    ends: { state: 'completed', text: spaceRunParagraphs().join('\n\n') },
  },
  'understated.docx': {
    make: () => docxUnderstatedZip(),
    ends: {
      state: 'not-parseable',
      reason: 'word/document.xml inflates beyond the 1,000 bytes it declares (a crafted zip)',
    },
  },
  'zip-bomb.docx': {
    make: () => docxBomb(),
    ends: { state: 'not-parseable', reason: 'word/document.xml inflates beyond 64 MB' },
  },
};

/** Files whose content is not what their name says: refused at upload. */
const MISMATCHED: Record<string, () => Buffer> = {
  'web-page.docx': zipOfHtmlAndExe,
  'letter-as-model.xlsx': () => docxFile(['Dear shareholders']),
};

const ENV = {
  DOCUMENT_PARSING: 'on',
  DOCUMENT_PARSE_INTERVAL_SECONDS: '0.1',
  DOCUMENT_PARSE_TIMEOUT_SECONDS: '30',
  DOCUMENT_PARSE_MEMORY_MB: '256',
  DOCUMENT_PARSE_LEASE_SECONDS: '60',
};

/** Relative imports of a module that load code (type-only imports are erased). */
function valueImports(file: string): string[] {
  const text = readFileSync(join(root, file), 'utf8');
  const specs = [...text.matchAll(/^(?:import|export)\s+(?!type\s)[^;]*?from\s+'(\.{1,2}\/[^']+)'/gm)].map(
    (m) => m[1]!,
  );
  specs.push(...[...text.matchAll(/import\(\s*'(\.{1,2}\/[^']+)'\s*\)/g)].map((m) => m[1]!));
  return specs.map((spec) => relative(root, normalize(join(root, dirname(file), spec))));
}

describe('the serving process and the parsers', () => {
  it('loads no parser: the server reaches parsing/ only through the runner', () => {
    const seen = new Set<string>();
    const queue = ['cli/portfolio.ts', 'server/http.ts'];
    while (queue.length > 0) {
      const file = queue.pop()!;
      if (seen.has(file)) continue;
      seen.add(file);
      queue.push(...valueImports(file));
    }
    const parsing = [...seen].filter((f) => f.startsWith('parsing/')).sort();
    expect(parsing).to.deep.equal(['parsing/runner.ts', 'parsing/worker.ts']);
    // The scan follows imports: the child's module exists and reaches the parsers.
    expect(readdirSync(join(root, 'parsing'))).to.include('parse-child.ts');
    expect(valueImports('parsing/parse-child.ts')).to.include('parsing/extract.ts');
  });
});

for (const dialect of dialects) {
  describe(`untrusted files (${dialect.name}) @db`, function () {
    this.timeout(240_000);
    let t: TestDb;
    let fx: Fixture;
    let server: ChildServer | undefined;

    before(async () => {
      t = await dialect.open();
      fx = await buildFixture(t.db);
      server = await spawnServer(t.url, ENV);
    });
    after(async () => {
      await server?.kill();
      await t?.drop();
    });

    async function upload(
      name: string,
      body: Buffer,
    ): Promise<{ status: number; id?: string; detail?: string }> {
      const form = new FormData();
      form.append('company_id', fx.companies.acme.id);
      const type = TYPES[name.split('.').pop()!]!;
      form.append('file', new Blob([new Uint8Array(body)], { type }), name);
      const res = await fetch(`${server!.url}/v1/documents/`, {
        method: 'POST',
        headers: { Authorization: `Bearer ${fx.admin.pat}` },
        body: form,
      });
      const json = (await res.json()) as { document_id?: string; detail?: string };
      return { status: res.status, id: json.document_id, detail: json.detail };
    }

    /** Plain text cannot be uploaded; it arrives the way imported documents do. */
    const addText = (name: string, text: string) =>
      addDocument(fx.repos, {
        company: fx.companies.acme,
        firmId: fx.firmA.id,
        name,
        body: Buffer.from(text),
        contentType: 'text/plain',
        uploadedAt: new Date().toISOString(),
      });

    const stateOf = async (id: string) => {
      const row = await t
        .db('documents')
        .where('id', id)
        .first('parse_state', 'parse_attempts', 'parse_note');
      return { ...row, parse_attempts: Number(row.parse_attempts) } as {
        parse_state: string;
        parse_attempts: number;
        parse_note: string | null;
      };
    };
    const textOf = async (id: string) =>
      ((await t.db('document_texts').where('document_id', id).first('text')) as { text: string } | undefined)
        ?.text;

    /** Polls /healthz until stopped; the slowest answer, and any that failed. */
    function watchHealth() {
      let stop = false;
      let slowest = 0;
      let answers = 0;
      const failures: string[] = [];
      const done = (async () => {
        while (!stop) {
          const started = performance.now();
          try {
            const res = await fetch(`${server!.url}/healthz`, { signal: AbortSignal.timeout(5000) });
            await res.arrayBuffer();
            if (res.status !== 200) failures.push(`status ${res.status}`);
          } catch (err) {
            failures.push(String(err));
          }
          slowest = Math.max(slowest, performance.now() - started);
          answers++;
          await new Promise((r) => setTimeout(r, 100));
        }
      })();
      return async () => {
        stop = true;
        await done;
        return { slowest, answers, failures };
      };
    }

    it('parses each poison file apart: the server keeps answering, and each document ends on its own', async () => {
      const pid = server!.child.pid;
      const count = async () => Number((await t.db('documents').count({ n: '*' }).first())?.n);
      const before = await count();
      // Made before the watch starts: making them holds up this process, not the server.
      const files = Object.fromEntries(Object.entries(POISON).map(([name, { make }]) => [name, make()]));
      const mismatched = Object.fromEntries(Object.entries(MISMATCHED).map(([name, make]) => [name, make()]));
      const health = watchHealth();
      for (const [name, body] of Object.entries(mismatched)) {
        const res = await upload(name, body);
        expect(res.status, name).to.equal(415);
        expect(res.detail, name).to.include(JSON.stringify(name));
      }
      expect(await count(), 'documents made of refused files').to.equal(before);
      const poison: Record<string, string> = {};
      for (const [name, body] of Object.entries(files)) {
        const res = await upload(name, body);
        expect(res.status, `${name}: ${res.detail}`).to.equal(201);
        poison[name] = res.id!;
      }
      const harmless: Record<string, string> = {};
      for (const [name, { body }] of Object.entries(HARMLESS)) {
        const res = await upload(name, body);
        expect(res.status, name).to.equal(201);
        harmless[name] = res.id!;
      }
      harmless['notes.txt'] = await addText('notes.txt', NOTES);
      const ids = [...Object.values(poison), ...Object.values(harmless)];
      await waitFor(
        'every document to be parsed',
        async () => {
          const open = await t
            .db('documents')
            .whereIn('id', ids)
            .whereIn('parse_state', ['not-started', 'in-progress']);
          return open.length === 0 ? true : undefined;
        },
        120_000,
      );
      const { slowest, answers, failures } = await health();

      expect(failures).to.deep.equal([]);
      expect(answers).to.be.greaterThan(10);
      expect(slowest, 'the slowest /healthz answer, ms').to.be.below(1000);
      expect(server!.child.exitCode).to.equal(null);
      expect(server!.child.pid).to.equal(pid);
      expect(running(pid!)).to.equal(true);

      for (const [name, id] of Object.entries(poison)) {
        const { ends } = POISON[name]!;
        const s = await stateOf(id);
        expect(s.parse_state, name).to.equal(ends.state);
        if ('reason' in ends) expect(s.parse_note, name).to.equal(ends.reason);
        else if ('cut' in ends) {
          expect(s.parse_note, name).to.equal(ends.cut);
          expect(await textOf(id), name)
            .to.be.a('string')
            .and.not.equal('');
        } else {
          expect(s.parse_note, name).to.equal(null);
          expect(await textOf(id), name).to.equal(ends.text);
        }
      }
      for (const [name, { text }] of Object.entries(HARMLESS)) {
        expect(await stateOf(harmless[name]!), name).to.deep.include({
          parse_state: 'completed',
          parse_attempts: 1,
        });
        expect(await textOf(harmless[name]!), name).to.equal(text);
      }
      expect(await stateOf(harmless['notes.txt']!)).to.deep.include({ parse_state: 'completed' });
      expect(await textOf(harmless['notes.txt']!)).to.equal(NOTES);
    });

    it('takes a document again when its parser process is killed mid-parse; the server is untouched', async () => {
      const pid = server!.child.pid!;
      // 6,000 pages, of which the first 2,000 are read: a second or more.
      const { status, id } = await upload('annual-report.pdf', pdfPages(6_000));
      expect(status).to.equal(201);
      const parser = await waitFor('the parser process', () => childProcesses(pid, 'parse-child')[0]);
      expect((await stateOf(id!)).parse_state).to.equal('in-progress');
      await readingLargePdf(parser);
      process.kill(parser, 'SIGKILL');

      const ended = await waitFor(
        'the document to be parsed again',
        async () => {
          const s = await stateOf(id!);
          return s.parse_state === 'in-progress' || s.parse_state === 'not-started' ? undefined : s;
        },
        60_000,
      );
      expect(ended).to.deep.equal({
        parse_state: 'completed',
        parse_attempts: 2,
        parse_note: 'only the first 2,000 of 6,000 pages were read',
      });
      expect(await textOf(id!)).to.equal(
        Array.from({ length: 2_000 }, (_, i) => `Page ${i + 1}`).join('\n\n'),
      );
      expect(server!.child.exitCode).to.equal(null);
      expect(server!.child.pid).to.equal(pid);
      const health = await fetch(`${server!.url}/healthz`);
      expect(health.status).to.equal(200);
      expect(server!.stderr()).to.not.match(/heap out of memory/i);
    });

    it('ends a parser process whose server died in the middle of a long parse', async () => {
      const pid = server!.child.pid!;
      // Seconds of reading (ten or more on a busy machine): the parse is far from done when the server dies.
      const { status } = await upload('drawings.pdf', pdfDrawings());
      expect(status).to.equal(201);
      const parser = await waitFor('the parser process', () => childProcesses(pid, 'parse-child')[0]);
      await readingLargePdf(parser);
      await server!.kill();
      server = undefined;
      await waitFor('the orphaned parser to end', () => (running(parser) ? undefined : true), 3000);
    });
  });
}
