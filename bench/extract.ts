// `npm run bench:extract`: a management-accounts workbook of 20 sheets and 5,000 rows (24 months across,
// title, units note, labels the synonym table knows and department lines it does not, costs in
// brackets, two budget tabs) uploaded through POST /v1/documents/ to the real server (the compiled build
// as `npm start` runs it, parsing on, polled every 0.1 s), on SQLite and, when BENCH_DATABASE_URL or TEST_DATABASE_URL names
// one, PostgreSQL:
//   (a) the time from the upload's first byte to the document's parse recorded with its proposals
//       (parse_state set, extraction_proposals written in the same transaction);
//   (b) the server's longest event-loop delay meanwhile (nodejs_eventloop_lag_max_seconds from /metrics,
//       monitorEventLoopDelay at 10 ms resolution, reset by the scrape before the upload).
// Then, in this process, the two halves alone: extractText (what the parser child runs) and
// extractFigures (what the server runs on the grids). Writes its section of bench/RESULTS.md.
// Options: --runs N (5), --no-write (print only).
import { readFileSync, writeFileSync } from 'node:fs';
import { cpus, loadavg } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import type { Knex } from 'knex';
import { openDb } from '../db/knex.ts';
import { extractText } from '../parsing/extract.ts';
import { extractFigures } from '../services/extraction/tables.ts';
import { type WriteCell, type WriteSheet, writeXlsx } from '../test/helpers/workbooks.ts';
import { type Dialect, dialectsFor, postgresUrlOf, throwawayDatabase } from './databases.ts';
import { generate, mulberry32 } from './generate.ts';
import { auth, loopDelayMax, serve } from './server.ts';
import { median } from './stats.ts';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const { values } = parseArgs({
  options: {
    runs: { type: 'string', default: '5' },
    'no-write': { type: 'boolean', default: false },
  },
});
const runs = Number(values.runs);
const postgresUrl = postgresUrlOf(undefined);
const COMPANY = 'bc000000';
const SHEETS = 20;
const ROWS = 5000;
const MONTHS = 24;
const XLSX = 'application/vnd.openxmlformats-officedocument.spreadsheetml.sheet';

const KNOWN = [
  'Revenue',
  'Cost of sales',
  'Gross profit',
  'Total operating expenses',
  'EBITDA',
  'Net income',
];
const KNOWN_BALANCE = ['Cash at bank', 'Trade debtors', 'Trade creditors', 'Total assets', 'Total equity'];
const KNOWN_KPI = ['ARR', 'New logo ARR', 'Churned ARR', 'Headcount', 'Net burn', 'Runway'];
const DEPARTMENTS = ['Engineering', 'Sales', 'Marketing', 'Customer success', 'Finance', 'People', 'Legal'];
const LINES = ['Salaries', 'Contractors', 'Software', 'Travel', 'Rent', 'Recruitment', 'Training'];
const MONTH_NAMES = ['Jan', 'Feb', 'Mar', 'Apr', 'May', 'Jun', 'Jul', 'Aug', 'Sep', 'Oct', 'Nov', 'Dec'];

/** The header cell of month `i` (from January 2025), in the spelling sheet `s` uses. */
function monthHeader(i: number, s: number): WriteCell {
  const year = 2025 + Math.floor(i / 12);
  const month = (i % 12) + 1;
  if (s % 3 === 0) return { date: `${year}-${String(month).padStart(2, '0')}-01` };
  if (s % 3 === 1) return `${MONTH_NAMES[month - 1]}-${String(year).slice(2)}`;
  return `${year}-${String(month).padStart(2, '0')}`;
}

/** One tab: title, units note, blank row, the months across, then `rows` labelled lines. */
function tab(s: number, rows: number, random: () => number): WriteSheet {
  const budget = s === 7 || s === 15;
  const kind = s % 3 === 0 ? 'Balance sheet' : s % 3 === 1 ? 'P&L' : 'KPIs';
  const name = `${kind} ${budget ? 'Budget ' : ''}${s + 1}`;
  const known = kind === 'Balance sheet' ? KNOWN_BALANCE : kind === 'P&L' ? KNOWN : KNOWN_KPI;
  const out: WriteCell[][] = [
    [`Acme Holdings — ${name}`],
    [s % 2 ? 'USD in thousands' : '$000s'],
    [],
    ['', ...Array.from({ length: MONTHS }, (_, i) => monthHeader(i, s))],
  ];
  for (let r = 0; out.length < rows; r++) {
    const label =
      r < known.length
        ? known[r]!
        : `${LINES[r % LINES.length]} — ${DEPARTMENTS[Math.floor(r / LINES.length) % DEPARTMENTS.length]} ${r}`;
    const cost = r >= known.length || label === 'Cost of sales';
    const figures = Array.from({ length: MONTHS }, (): WriteCell => {
      const v = Math.round(random() * 100_000) / 10;
      return cost && s % 2 ? `(${v.toLocaleString('en')})` : cost ? -v : v;
    });
    out.push([label, ...figures]);
  }
  return { name, rows: out };
}

/** The 20-sheet, 5,000-row workbook, the same bytes every time. */
export function managementAccounts(): Buffer {
  const random = mulberry32(34);
  return writeXlsx(Array.from({ length: SHEETS }, (_, s) => tab(s, ROWS / SHEETS, random)));
}

interface Run {
  ms: number;
  /** The upload's answer, and the document seen in-progress (claimed by the parse worker). */
  uploadedMs: number;
  claimedMs: number;
  loopMs: number;
  proposals: number;
  state: string;
  documentId: string;
  /** Confirming CONFIRMED of its mapped actuals, each value changed, over existing points (overwrite). */
  confirmMs?: number;
}

/** How many mapped proposals each run confirms. */
const CONFIRMED = 1000;

async function uploadOnce(base: string, db: Knex, content: Buffer, n: number): Promise<Run> {
  await loopDelayMax(base);
  const started = performance.now();
  const form = new FormData();
  form.append('company_id', COMPANY);
  form.append('file', new Blob([new Uint8Array(content)], { type: XLSX }), `accounts-${n}.xlsx`);
  const res = await fetch(`${base}/v1/documents/`, { method: 'POST', headers: auth, body: form });
  const body = (await res.json()) as { document_id?: string };
  if (res.status !== 201 || !body.document_id) throw new Error(`upload answered ${res.status}`);
  const uploadedMs = performance.now() - started;
  let claimedMs: number | undefined;
  for (const deadline = Date.now() + 120_000; Date.now() < deadline; ) {
    const doc = (await db('documents').where('id', body.document_id).first('parse_state')) as {
      parse_state: string;
    };
    if (doc.parse_state === 'in-progress') claimedMs ??= performance.now() - started;
    if (!['not-started', 'in-progress'].includes(doc.parse_state)) {
      const ms = performance.now() - started;
      const loopMs = await loopDelayMax(base);
      const count = (await db('extraction_proposals')
        .where('document_id', body.document_id)
        .count({ n: '*' })
        .first()) as { n: number | string };
      return {
        ms,
        uploadedMs,
        claimedMs: claimedMs ?? ms,
        loopMs,
        proposals: Number(count.n),
        state: doc.parse_state,
        documentId: body.document_id,
      };
    }
    await new Promise((r) => setTimeout(r, 5));
  }
  throw new Error('the workbook was not parsed within 120 s');
}

/**
 * Confirms the first CONFIRMED mapped actuals of a document over REST, multiplied by `multiplier` so
 * that each run's values differ from the last one's and overwrite them (a changed value and source per
 * point, the heaviest confirm); the time the request took.
 */
async function confirmOnce(base: string, db: Knex, documentId: string, multiplier: string): Promise<number> {
  const rows = (await db('extraction_proposals')
    .where({ document_id: documentId, status: 'proposed', kind: 'actual' })
    .whereNotNull('category_id')
    .whereNull('figures')
    .where('date', '<=', new Date().toISOString().slice(0, 10)) // actuals cannot be dated in the future
    .orderBy('id')
    .select('id', 'category_id', 'cadence', 'date')) as Record<string, string>[];
  // One proposal of each point: the same line on two tabs would be one point written twice (refused).
  const byPoint = new Map(rows.map((r) => [`${r.category_id} ${r.cadence} ${r.date}`, r.id]));
  const ids = [...byPoint.values()].slice(0, CONFIRMED);
  const started = performance.now();
  const res = await fetch(`${base}/v1/documents/${documentId}/proposals/confirm/`, {
    method: 'POST',
    headers: { ...auth, 'content-type': 'application/json' },
    body: JSON.stringify({ ids, corrections: [{ ids, multiplier }], on_conflict: 'overwrite' }),
  });
  const ms = performance.now() - started;
  const body = (await res.json()) as { confirmed?: number };
  if (res.status !== 200 || body.confirmed !== ids.length)
    throw new Error(`confirm answered ${res.status}: ${JSON.stringify(body).slice(0, 300)}`);
  return ms;
}

async function measureServer(dialect: Dialect, content: Buffer): Promise<Run[]> {
  const store = await throwawayDatabase(dialect, 'extract', postgresUrl);
  try {
    await generate(store.url, 1, 1);
    const server = await serve(store.url, {
      DOCUMENT_PARSING: 'true',
      DOCUMENT_PARSE_INTERVAL_SECONDS: '0.1',
    });
    const db = openDb(store.url);
    try {
      const warm = await uploadOnce(server.url, db, content, 0); // warm-up: not counted
      await confirmOnce(server.url, db, warm.documentId, '1');
      const results: Run[] = [];
      for (let i = 1; i <= runs; i++) {
        const run = await uploadOnce(server.url, db, content, i);
        run.confirmMs = await confirmOnce(server.url, db, run.documentId, `1.${i}`);
        process.stderr.write(
          `  ${dialect} run ${i}: ${run.ms.toFixed(0)} ms (answered ${run.uploadedMs.toFixed(0)}, claimed ${run.claimedMs.toFixed(0)}), event loop ${run.loopMs.toFixed(0)} ms, ${run.proposals} proposals (${run.state}), confirm ${run.confirmMs.toFixed(0)} ms\n`,
        );
        results.push(run);
      }
      return results;
    } finally {
      await db.destroy();
      await server.stop();
    }
  } finally {
    await store.drop();
  }
}

/** The halves in this process: the parse (as the child runs it) and the proposal step, medians of `runs`. */
async function measureHalves(
  content: Buffer,
): Promise<{ parseMs: number; proposeMs: number; cells: number }> {
  const parse: number[] = [];
  const propose: number[] = [];
  let cells = 0;
  for (let i = 0; i <= runs; i++) {
    let t = performance.now();
    const outcome = await extractText({ content, content_type: XLSX, filename: 'accounts.xlsx' });
    const parseMs = performance.now() - t;
    if (outcome.state !== 'completed' || !outcome.grids) throw new Error('the workbook did not parse');
    t = performance.now();
    extractFigures(outcome.grids, {
      fyEndMonth: 12,
      currency: null,
      customMetrics: [],
      remembered: new Map(),
    });
    if (i === 0) {
      cells = outcome.grids.reduce((n, g) => n + g.rows.reduce((m, r) => m + r.cells.length, 0), 0);
      continue; // warm-up
    }
    parse.push(parseMs);
    propose.push(performance.now() - t);
  }
  return { parseMs: median(parse), proposeMs: median(propose), cells };
}

const verdict = (ok: boolean) => (ok ? 'met' : '**missed**');

function report(
  results: { dialect: Dialect; runs: Run[] }[],
  halves: Awaited<ReturnType<typeof measureHalves>>,
  size: number,
  load: number,
): string {
  const lines = [
    '<!-- extract:start -->',
    '## Figures from a management-accounts workbook',
    '',
    `Generated by \`npm run bench:extract\` on ${new Date().toISOString().slice(0, 10)}: ${cpus().length} cores ` +
      `(1-minute load average ${load.toFixed(1)} at the start, shared with other work), Node ${process.version}. ` +
      `The workbook: ${SHEETS} sheets, ${ROWS.toLocaleString('en')} rows, ${MONTHS} months across ` +
      `(${halves.cells.toLocaleString('en')} cells with content, ${(size / 1024).toFixed(0)} KB; title, units note, ` +
      'month headers as date cells, `Jan-25` and `2025-01`, known labels and department lines, costs in brackets, ' +
      'two budget tabs). Each run uploads it through `POST /v1/documents/` to the real server (the compiled build as `npm start` runs it, in a ' +
      "child process, parsing on, polled every 0.1 s) and times from the upload to the document's parse " +
      "recorded with its proposals (polled every 5 ms); the event loop figure is the server's longest delay " +
      'in that time (`nodejs_eventloop_lag_max_seconds` from /metrics, 10 ms resolution, reset just before ' +
      `the upload). Medians of ${runs} runs after one not counted. The halves are timed in this process: ` +
      'extractText (what the parser child runs) and extractFigures (what the server runs on the grids).',
    '',
    '| Database | upload → proposals stored, median (max) | of which until claimed by the parse worker | event loop delay max, median (max) | proposals |',
    '|---|---:|---:|---:|---:|',
  ];
  for (const r of results) {
    const ms = r.runs.map((x) => x.ms);
    const loop = r.runs.map((x) => x.loopMs);
    lines.push(
      `| ${r.dialect} | ${median(ms).toFixed(0)} ms (${Math.max(...ms).toFixed(0)}) | ${median(r.runs.map((x) => x.claimedMs)).toFixed(0)} ms | ${median(loop).toFixed(0)} ms (${Math.max(...loop).toFixed(0)}) | ${r.runs[0]!.proposals.toLocaleString('en')} |`,
    );
  }
  lines.push(
    '',
    `Halves: parse ${halves.parseMs.toFixed(0)} ms, proposals ${halves.proposeMs.toFixed(0)} ms (medians).`,
    '',
    `Confirming: after each run, ${CONFIRMED.toLocaleString('en')} of the document's mapped actuals (dated up to today, one per point) confirmed in one ` +
      '`POST /v1/documents/:id/proposals/confirm/` with a multiplier correction, over the points the run before ' +
      'wrote (`on_conflict: overwrite`, so every value and source changes), timed by the client: ' +
      results
        .map((r) => {
          const ms = r.runs.map((x) => x.confirmMs ?? 0);
          return `${r.dialect} ${median(ms).toFixed(0)} ms (max ${Math.max(...ms).toFixed(0)})`;
        })
        .join(', ') +
      '.',
    '',
    '| Target | Figure | Result |',
    '|---|---|---|',
  );
  for (const r of results) {
    const ms = median(r.runs.map((x) => x.ms));
    const loop = median(r.runs.map((x) => x.loopMs));
    lines.push(
      `| ${r.dialect}: proposed within 2 s | ${ms.toFixed(0)} ms | ${verdict(ms <= 2000)} |`,
      `| ${r.dialect}: event loop held ≤ 100 ms meanwhile | ${loop.toFixed(0)} ms | ${verdict(loop <= 100)} |`,
    );
  }
  lines.push('<!-- extract:end -->', '');
  return lines.join('\n');
}

const load = loadavg()[0]!;
const content = managementAccounts();
const halves = await measureHalves(content);
process.stderr.write(
  `in process: parse ${halves.parseMs.toFixed(0)} ms, proposals ${halves.proposeMs.toFixed(0)} ms\n`,
);
const results: { dialect: Dialect; runs: Run[] }[] = [];
for (const dialect of dialectsFor(postgresUrl))
  results.push({ dialect, runs: await measureServer(dialect, content) });
const block = report(results, halves, content.length, load);
console.log(block);
if (!values['no-write']) {
  const file = join(root, 'bench/RESULTS.md');
  const current = readFileSync(file, 'utf8');
  const marked = /<!-- extract:start -->[\s\S]*<!-- extract:end -->\n/;
  writeFileSync(file, marked.test(current) ? current.replace(marked, block) : `${current}\n${block}`);
}
