// `npm run bench:parse`: document search and parsing through the real server, run as a child process.
// (a) search_documents over documents whose extracted texts are about a million characters each
//     (inserted directly): p50/p99 of the REST search, and the worst /healthz answer seen while
//     searches run — how long one search holds every other request;
// (b) uploads of ordinary generated files (pdf, docx, xlsx, pptx, ods) through POST /v1/documents/ to a
//     server with parsing on: documents parsed per second;
// (c) the server's peak resident memory (VmHWM) while those files parse;
// (d) the text clean-up of a paragraph of 80,000 spaces, alone and as a whole DOCX extraction.
// On SQLite and, when BENCH_DATABASE_URL or TEST_DATABASE_URL names a PostgreSQL, on PostgreSQL (in a
// schema of its own). Writes its section of bench/RESULTS.md.
// Options: --quick (fewer searches and files), --docs N (100), --chars C (1000000), --searches S (20),
// --files F (60), --no-write (print only).
import { readFileSync, writeFileSync } from 'node:fs';
import { cpus, loadavg } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import type { Knex } from 'knex';
import { SEARCHED_CHARS } from '../db/migrations/014-document-parsing.ts';
import { docxFile, odsFile, pdfFile, pptxFile, xlsxFile } from '../db/seeds/office-files.ts';
import { extractText, tidy } from '../parsing/extract.ts';
import { type Dialect, throwawayDatabase } from './databases.ts';
import { generate, mulberry32 } from './generate.ts';
import { auth, loopDelayMax, percentile, retried, serve } from './server.ts';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const { values } = parseArgs({
  options: {
    quick: { type: 'boolean', default: false },
    docs: { type: 'string', default: '100' },
    chars: { type: 'string', default: '1000000' },
    searches: { type: 'string' },
    files: { type: 'string' },
    'no-write': { type: 'boolean', default: false },
  },
});
const quick = values.quick;
const docs = Number(values.docs);
const chars = Number(values.chars);
const searches = Number(values.searches ?? (quick ? 10 : 20));
const files = Number(values.files ?? (quick ? 30 : 60));
const postgresUrl = process.env.BENCH_DATABASE_URL ?? process.env.TEST_DATABASE_URL;
const COMPANY = 'bc000000';
/** In every text, all through it. */
const COMMON = 'quarterly';
/** In every text once, just inside the searched window: the passage has to be found far in. */
const LATE = 'zeppelin';

function log(message: string): void {
  process.stderr.write(`${message}\n`);
}

/** About `length` characters of sentences over a vocabulary of 3,000 made-up words, `LATE` once near the window's end. */
function bigText(seed: number, length: number): string {
  const random = mulberry32(seed);
  const syllables = ['ka', 'lo', 'mi', 'ne', 'ru', 'sa', 'to', 'vi', 'de', 'po', 'gra', 'sen', 'tor'];
  const vocabulary = Array.from({ length: 3000 }, (_, i) => {
    let w = '';
    for (let n = 2 + (i % 3); n > 0; n--) w += syllables[Math.floor(random() * syllables.length)];
    return w;
  });
  const parts: string[] = [];
  let size = 0;
  const late = Math.min(length, SEARCHED_CHARS) - 2000;
  let placed = false;
  while (size < length) {
    const words = Array.from({ length: 12 }, () => vocabulary[Math.floor(random() * vocabulary.length)]!);
    words[0] = words[0]!.charAt(0).toUpperCase() + words[0]!.slice(1);
    if (random() < 0.1) words[5] = COMMON;
    if (!placed && size > late) {
      words[7] = LATE;
      placed = true;
    }
    const sentence = `${words.join(' ')}.${random() < 0.15 ? '\n\n' : ' '}`;
    parts.push(sentence);
    size += sentence.length;
  }
  return parts.join('').slice(0, length);
}

/** `docs` completed documents with their texts, written straight to the database. */
async function seedTexts(url: string): Promise<void> {
  await generate(url, 1, 1);
  const db: Knex = (await import('../db/knex.ts')).openDb(url);
  try {
    for (let i = 0; i < docs; i++) {
      const id = `bdoc${String(i).padStart(5, '0')}`;
      const uploaded = new Date(Date.UTC(2026, 0, 1) + i * 60_000).toISOString();
      await db.transaction(async (trx) => {
        await trx('document_files').insert({
          id: `${id}f`,
          filename: `${id}.pdf`,
          content_type: 'application/pdf',
          size: 1,
          content: Buffer.from('x'),
        });
        await trx('documents').insert({
          id,
          firm_id: 'bench-firm',
          company_id: COMPANY,
          information_request_id: null,
          file_id: `${id}f`,
          name: `${id}.pdf`,
          parse_state: 'completed',
          parsed_at: uploaded,
          uploaded_at: uploaded,
          submitted_date: uploaded.slice(0, 10),
          source: 'upload',
        });
        const text = bigText(i + 1, chars);
        await trx('document_texts').insert({
          document_id: id,
          text,
          format: 'pdf',
          source_pages: null,
          char_count: text.length,
          created_at: uploaded,
        });
      });
    }
    if (url.startsWith('postgres')) await db.raw('vacuum analyze');
  } finally {
    await db.destroy();
  }
}

interface SearchFigures {
  query: string;
  p50: number;
  p99: number;
  max: number;
  hits: number;
  /** The slowest /healthz answer while the searches ran. */
  hold: number;
  /** The slowest /healthz answer with nothing else running. */
  idle: number;
  /** The server's own longest event-loop delay while the searches ran. */
  loop: number;
  /** The median over the searches of each one's longest event-loop delay. */
  loopMedian: number;
  passage: string;
}

/** /healthz asked back to back until `stop` is set; the slowest answer. */
async function probe(base: string, running: { stop: boolean }): Promise<number> {
  let worst = 0;
  while (!running.stop) {
    const started = performance.now();
    await retried(async () => (await fetch(`${base}/healthz`)).arrayBuffer());
    worst = Math.max(worst, performance.now() - started);
  }
  return worst;
}

async function searchOnce(base: string, query: string): Promise<{ ms: number; body: SearchBody }> {
  const started = performance.now();
  const { res, text } = await retried(async () => {
    const res = await fetch(`${base}/v1/documents/search/?query=${encodeURIComponent(query)}`, {
      headers: auth,
    });
    return { res, text: await res.text() };
  });
  const ms = performance.now() - started;
  if (res.status !== 200) throw new Error(`search answered ${res.status}: ${text.slice(0, 300)}`);
  return { ms, body: JSON.parse(text) as SearchBody };
}

interface SearchBody {
  count: number;
  results: { passage: string }[];
}

async function measureSearch(base: string, query: string): Promise<SearchFigures> {
  const idleRun = { stop: false };
  const idleProbe = probe(base, idleRun);
  await new Promise((r) => setTimeout(r, 500));
  idleRun.stop = true;
  const idle = await idleProbe;
  const first = await searchOnce(base, query);
  await loopDelayMax(base);
  const running = { stop: false };
  const held = probe(base, running);
  const times: number[] = [];
  const loops: number[] = [];
  try {
    for (let i = 0; i < searches; i++) {
      times.push((await searchOnce(base, query)).ms);
      loops.push(await loopDelayMax(base));
    }
  } finally {
    running.stop = true;
  }
  return {
    loop: Math.max(...loops),
    loopMedian: percentile(loops, 50),
    query,
    p50: percentile(times, 50),
    p99: percentile(times, 99),
    max: Math.max(...times),
    hits: first.body.results.length,
    hold: await held,
    idle,
    passage: first.body.results[0]?.passage ?? '',
  };
}

/** A mix of ordinary documents, a few pages or sheets each. */
function sampleFile(i: number): { name: string; type: string; content: Buffer } {
  const line = (n: number) =>
    `Line ${n} of document ${i}: revenue grew, churn fell and the board discussed hiring in detail.`;
  const lines = (count: number) => Array.from({ length: count }, (_, n) => line(n));
  const rows = (count: number) => [
    ['Month', 'Revenue', 'Costs', 'Headcount'],
    ...Array.from({ length: count }, (_, n) => [
      `2026-${String((n % 12) + 1).padStart(2, '0')}`,
      n * 1000.5,
      n * 700,
      n,
    ]),
  ];
  switch (i % 5) {
    case 0:
      return {
        name: `report-${i}.pdf`,
        type: 'application/pdf',
        content: pdfFile(Array.from({ length: 5 }, () => lines(40))),
      };
    case 1:
      return {
        name: `memo-${i}.docx`,
        type: 'application/vnd.openxmlformats-officedocument.wordprocessingml.document',
        content: docxFile(lines(200)),
      };
    case 2:
      return {
        name: `model-${i}.xlsx`,
        type: 'application/vnd.openxmlformats-officedocument.spreadsheetml.sheet',
        content: xlsxFile([
          { name: 'P&L', rows: rows(300) },
          { name: 'Team', rows: rows(50) },
        ]),
      };
    case 3:
      return {
        name: `deck-${i}.pptx`,
        type: 'application/vnd.openxmlformats-officedocument.presentationml.presentation',
        content: pptxFile(Array.from({ length: 10 }, () => lines(8))),
      };
    default:
      return {
        name: `sheet-${i}.ods`,
        type: 'application/vnd.oasis.opendocument.spreadsheet',
        content: odsFile([{ name: 'Data', rows: rows(300) }]),
      };
  }
}

interface ParseFigures {
  files: number;
  parsed: number;
  /** Parsed with a text (the rest ended not-parseable). */
  completed: number;
  seconds: number;
  perSecond: number;
  vmHwmMb: number;
  idleHwmMb: number;
}

function vmHwm(pid: number): number {
  return Number(/VmHWM:\s+(\d+)/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))?.[1] ?? 0) / 1024;
}

async function measureParsing(url: string): Promise<ParseFigures> {
  await generate(url, 1, 1);
  const server = await serve(url, { DOCUMENT_PARSING: 'true', DOCUMENT_PARSE_INTERVAL_SECONDS: '0.1' });
  const db: Knex = (await import('../db/knex.ts')).openDb(url);
  try {
    const idleHwmMb = vmHwm(server.pid);
    const started = performance.now();
    for (let i = 0; i < files; i++) {
      const f = sampleFile(i);
      const form = new FormData();
      form.append('company_id', COMPANY);
      form.append('file', new Blob([new Uint8Array(f.content)], { type: f.type }), f.name);
      const res = await fetch(`${server.url}/v1/documents/`, { method: 'POST', headers: auth, body: form });
      const text = await res.text();
      if (res.status !== 201)
        throw new Error(`upload of ${f.name} answered ${res.status}: ${text.slice(0, 300)}`);
    }
    let parsed = 0;
    const deadline = Date.now() + 300_000;
    while (Date.now() < deadline) {
      const row = (await db('documents')
        .whereNotIn('parse_state', ['not-started', 'in-progress'])
        .count({ n: '*' })
        .first()) as { n: number | string };
      parsed = Number(row.n);
      if (parsed >= files) break;
      await new Promise((r) => setTimeout(r, 20));
    }
    const seconds = (performance.now() - started) / 1000;
    const completed = (await db('documents').where('parse_state', 'completed').count({ n: '*' }).first()) as {
      n: number | string;
    };
    if (Number(completed.n) !== files) log(`  only ${completed.n} of ${files} files parsed completely`);
    return {
      files,
      parsed,
      completed: Number(completed.n),
      seconds,
      perSecond: parsed / seconds,
      vmHwmMb: vmHwm(server.pid),
      idleHwmMb,
    };
  } finally {
    await db.destroy();
    await server.stop();
  }
}

interface DialectResult {
  dialect: string;
  search: SearchFigures[];
  parse: ParseFigures;
}

async function runDialect(dialect: Dialect): Promise<DialectResult> {
  log(`\n${dialect}`);
  const texts = await throwawayDatabase(dialect, 'parse_search', postgresUrl);
  const search: SearchFigures[] = [];
  try {
    const started = Date.now();
    await seedTexts(texts.url);
    log(
      `  ${docs} texts of ${chars.toLocaleString('en')} characters in ${((Date.now() - started) / 1000).toFixed(0)} s`,
    );
    const server = await serve(texts.url, { DOCUMENT_PARSING: 'false' });
    try {
      for (const query of [COMMON, LATE]) {
        const s = await measureSearch(server.url, query);
        search.push(s);
        log(
          `  search "${query}": ${s.hits} hits, p50 ${s.p50.toFixed(0)} ms, p99 ${s.p99.toFixed(0)} ms, ` +
            `/healthz worst ${s.hold.toFixed(0)} ms (idle ${s.idle.toFixed(0)} ms), event loop held ${s.loop.toFixed(0)} ms (median ${s.loopMedian.toFixed(0)})\n    ${s.passage}`,
        );
      }
    } finally {
      await server.stop();
    }
  } finally {
    await texts.drop();
  }
  const uploads = await throwawayDatabase(dialect, 'parse_uploads', postgresUrl);
  try {
    const parse = await measureParsing(uploads.url);
    log(
      `  parsed ${parse.parsed} files in ${parse.seconds.toFixed(1)} s: ${parse.perSecond.toFixed(1)}/s, ` +
        `VmHWM ${parse.vmHwmMb.toFixed(0)} MB (${parse.idleHwmMb.toFixed(0)} MB before the uploads)`,
    );
    return { dialect, search, parse };
  } finally {
    await uploads.drop();
  }
}

const verdict = (ok: boolean) => (ok ? 'met' : '**missed**');

interface CleanUpFigures {
  tidyMs: number;
  docxMs: number;
}

/** Medians of 10 runs: tidy() over "a", 80,000 spaces and "x" twice, and extractText of a DOCX of them. */
async function measureCleanUp(): Promise<CleanUpFigures> {
  const paragraph = `a${' '.repeat(80_000)}x`;
  const text = `${paragraph}\n${paragraph}`;
  const docx = docxFile([paragraph, paragraph]);
  const tidyRuns: number[] = [];
  const docxRuns: number[] = [];
  for (let i = 0; i < 10; i++) {
    let t = performance.now();
    tidy(text);
    tidyRuns.push(performance.now() - t);
    t = performance.now();
    await extractText({ content: docx, content_type: 'application/octet-stream', filename: 'spaces.docx' });
    docxRuns.push(performance.now() - t);
  }
  return { tidyMs: percentile(tidyRuns, 50), docxMs: percentile(docxRuns, 50) };
}

function report(results: DialectResult[], load: number, cleanUp: CleanUpFigures): string {
  const lines = [
    '<!-- parse:start -->',
    '## Document search and parsing',
    '',
    `Generated by \`npm run bench:parse${quick ? ' -- --quick' : ''}\` on ${new Date().toISOString().slice(0, 10)}: ` +
      `${cpus().length} cores (1-minute load average ${load.toFixed(1)} at the start, shared with other work), Node ${process.version}. ` +
      `The server runs as a child process, the compiled build as \`npm start\` runs it (bench/server.ts). Search: ${docs} documents of one company, each with an ` +
      `extracted text of ${chars.toLocaleString('en')} characters (sentences over 3,000 made-up words), inserted directly; ` +
      `${searches} sequential \`GET /v1/documents/search/?query=…\` (default page: 100 hits) after a first one, while ` +
      '`/healthz` is asked back to back: its slowest answer is how long a search held every other request ' +
      "(with the machine's own delays; idle: the slowest answer before the searches), and the server's own " +
      'longest event-loop delay during each search (`nodejs_eventloop_lag_max_seconds` from /metrics, 10 ms ' +
      'resolution) is read: the worst over the searches, and their median. ' +
      `"${COMMON}" occurs all through every text; "${LATE}" once, about 2,000 characters before the end of the ` +
      `searched window (${SEARCHED_CHARS.toLocaleString('en')} characters). Parsing: ${files} generated files ` +
      '(pdf, docx, xlsx, pptx, ods in turn, a few pages or sheets each) uploaded one after another through ' +
      '`POST /v1/documents/` to a fresh server with parsing on (poll 0.1 s), timed until every one is parsed; ' +
      "VmHWM is the server process's peak resident memory from /proc/<pid>/status.",
    '',
    '| Database | Query | hits | p50 ms | p99 ms | /healthz worst ms (idle) | event loop held, worst (median) ms |',
    '|---|---|---:|---:|---:|---:|---:|',
  ];
  for (const r of results)
    for (const s of r.search)
      lines.push(
        `| ${r.dialect} | ${s.query} | ${s.hits} | ${s.p50.toFixed(0)} | ${s.p99.toFixed(0)} | ${s.hold.toFixed(0)} (${s.idle.toFixed(0)}) | ${s.loop.toFixed(0)} (${s.loopMedian.toFixed(0)}) |`,
      );
  lines.push(
    '',
    '| Database | files parsed (with a text) | parsed/s | VmHWM MB (before uploads) |',
    '|---|---:|---:|---:|',
    ...results.map(
      (r) =>
        `| ${r.dialect} | ${r.parse.parsed} of ${r.parse.files} (${r.parse.completed}) | ${r.parse.perSecond.toFixed(1)} | ${r.parse.vmHwmMb.toFixed(0)} (${r.parse.idleHwmMb.toFixed(0)}) |`,
    ),
    '',
    '| Target | Figure | Result |',
    '|---|---|---|',
  );
  for (const r of results) {
    const slowest = Math.max(...r.search.map((s) => s.p99));
    const hold = Math.max(...r.search.map((s) => s.hold));
    const loop = Math.max(...r.search.map((s) => s.loop));
    lines.push(
      `| ${r.dialect}: 100 hits over 1M-character texts within 1 s | p99 ${slowest.toFixed(0)} ms | ${verdict(slowest <= 1000)} |`,
      `| ${r.dialect}: a search holds other requests ≤ 100 ms | event loop held ${loop.toFixed(0)} ms; /healthz worst ${hold.toFixed(0)} ms | ${verdict(loop <= 100)} |`,
    );
  }
  lines.push(
    `| Text clean-up of "a", 80,000 spaces and "x" (twice) well under 50 ms | tidy ${cleanUp.tidyMs.toFixed(2)} ms; a DOCX of the two paragraphs extracted in ${cleanUp.docxMs.toFixed(1)} ms (medians of 10, in this process) | ${verdict(cleanUp.tidyMs < 50)} |`,
  );
  lines.push('<!-- parse:end -->', '');
  return lines.join('\n');
}

const load = loadavg()[0]!;
const cleanUp = await measureCleanUp();
const results: DialectResult[] = [await runDialect('SQLite')];
if (postgresUrl) results.push(await runDialect('PostgreSQL'));
const block = report(results, load, cleanUp);
console.log(block);
if (!values['no-write']) {
  const file = join(root, 'bench/RESULTS.md');
  const current = readFileSync(file, 'utf8');
  const marked = /<!-- parse:start -->[\s\S]*<!-- parse:end -->\n/;
  writeFileSync(file, marked.test(current) ? current.replace(marked, block) : `${current}\n${block}`);
}
