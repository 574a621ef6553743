// `npm run bench`: the compiled server (what `npm start` runs) against two bare node:http baselines
// (bench/baseline.ts): one doing the same work with statements prepared once, one replying the same
// bytes, on two shapes of data: the bench firm's deep pages (bench/generate.ts) and the demo data's
// small ones. Rounds are interleaved (service, same work, same bytes, for every case in turn) and each
// figure is the median over the rounds; the service's peak resident memory is its high-water mark. Also:
// start-up as `npm start` runs it (bench/start.ts), the portfolio calls at 1,000 companies
// (bench/screen.ts) and the install size. On SQLite and, when BENCH_DATABASE_URL or TEST_DATABASE_URL
// names a PostgreSQL, on PostgreSQL (in schemas of its own). Generated databases are kept in bench/data
// (and those schemas) and reused. Writes bench/RESULTS.md.
// Options: --quick (a smaller firm, shorter rounds, portfolio calls at 24 months instead of 120: about
// ten minutes once the databases exist), --companies N (1000), --months M (60), --duration S (8),
// --rounds R (3), --connections C (10).
import { type ChildProcess, execFileSync, spawn } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, realpathSync, rmSync, writeFileSync } from 'node:fs';
import { cpus, loadavg, tmpdir, totalmem } from 'node:os';
import { dirname, join } from 'node:path';
import { setTimeout as delay } from 'node:timers/promises';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import autocannon from 'autocannon';
import knexFactory from 'knex';
import { openDb } from '../db/knex.ts';
import { DEMO } from '../db/seeds/demo.ts';
import { postgresSchemaUrl } from './databases.ts';
import { BENCH_TOKEN, generate, generateDemo } from './generate.ts';
import { startCommand, startEnv } from './npm-start.ts';
import { type ScreenTiming, screenTable, timeScreenCalls } from './screen.ts';
import { freePort, startUp } from './start.ts';
import { median } from './stats.ts';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const { values } = parseArgs({
  options: {
    quick: { type: 'boolean', default: false },
    companies: { type: 'string' },
    months: { type: 'string', default: '60' },
    duration: { type: 'string' },
    rounds: { type: 'string' },
    connections: { type: 'string', default: '10' },
  },
});
const quick = values.quick;
const companies = Number(values.companies ?? (quick ? 100 : 1000));
const months = Number(values.months);
const duration = Number(values.duration ?? (quick ? 3 : 8));
const rounds = Number(values.rounds ?? 3);
const connections = Number(values.connections);
/** The portfolio calls' firm: issue #24 sets the target at 1,000 companies with ten years of months. */
const SCREEN_COMPANIES = 1000;
const screenMonths = quick ? 24 : 120;
const screenRuns = quick ? 5 : 9;
const START_RUNS = 5;
const postgresUrl = process.env.BENCH_DATABASE_URL ?? process.env.TEST_DATABASE_URL;
const PUBLIC_URL = 'http://bench.local';
const node = join(root, 'node_modules/.bin/node');

function log(message: string): void {
  process.stderr.write(`${message}\n`);
}

/** A memory figure of /proc/PID/status (VmRSS: resident now; VmHWM: the peak since start or reset), in MB. */
function memoryOf(pid: number, field: 'VmRSS' | 'VmHWM'): number {
  const status = readFileSync(`/proc/${pid}/status`, 'utf8');
  return Number(new RegExp(`${field}:\\s+(\\d+) kB`).exec(status)?.[1] ?? 0) / 1024;
}

/** Sets the peak resident memory (VmHWM) back to what is resident now (Linux, since 4.0). */
function resetPeak(pid: number): void {
  writeFileSync(`/proc/${pid}/clear_refs`, '5');
}

interface Running {
  url: string;
  pid: number;
  /** Throws when the process has exited: a measurement of a dead process means nothing. */
  checkAlive(): void;
  stop(): Promise<void>;
}

/** Starts a process and resolves once `health` answers (any status). */
async function launch(command: string[], env: Record<string, string>, health: string): Promise<Running> {
  // A port the system hands out, so that another run on the machine cannot answer in its place.
  const port = await freePort();
  const child: ChildProcess = spawn(
    command[0]!,
    command.slice(1).map((a) => a.replace('$PORT', String(port))),
    {
      cwd: root,
      env: { ...process.env, ...env, PORT: String(port), HOST: '127.0.0.1', LOG_LEVEL: 'warn' },
      stdio: ['ignore', 'ignore', 'inherit'],
    },
  );
  const url = `http://127.0.0.1:${port}`;
  const exited = new Promise((r) => child.once('exit', r));
  const checkAlive = () => {
    if (child.exitCode !== null || child.signalCode !== null) {
      throw new Error(`${command.join(' ')} exited (${child.signalCode ?? `code ${child.exitCode}`})`);
    }
  };
  for (;;) {
    checkAlive();
    try {
      await (await fetch(url + health)).arrayBuffer();
      break;
    } catch {
      await delay(5);
    }
  }
  checkAlive();
  return {
    url,
    pid: child.pid!,
    checkAlive,
    async stop() {
      child.kill('SIGTERM');
      await exited;
    },
  };
}

const service = (url: string) => launch([node, ...startCommand], serviceEnv(url), '/readyz');
const serviceEnv = (url: string) => ({
  ...startEnv,
  DATABASE_URL: url,
  PUBLIC_URL,
  RATE_LIMIT_PER_MINUTE: '100000000',
  SHUTDOWN_DRAIN_SECONDS: '0',
});
const workBaseline = (url: string) =>
  launch([node, '--import', 'tsx', 'bench/baseline.ts', 'work', url, '$PORT', PUBLIC_URL], {}, '/');
const bytesBaseline = (file: string) =>
  launch([node, '--import', 'tsx', 'bench/baseline.ts', 'bytes', file, '$PORT'], {}, '/');

type Request = { method: 'GET' | 'POST'; path: string; body?: string };

interface Case {
  name: string;
  request: () => Request;
  /** The same-work baseline serves it too. */
  work: boolean;
}

interface Sample {
  rps: number;
  p50: number;
  p99: number;
  /** The process's peak resident memory during the measurement, MB. */
  peak: number;
  errors: number;
}

const headers = {
  Authorization: `Bearer ${BENCH_TOKEN}`,
  'Content-Type': 'application/json',
  Accept: 'application/json, text/event-stream',
};

async function load(target: Running, request: () => Request, seconds = duration): Promise<Sample> {
  target.checkAlive();
  resetPeak(target.pid);
  const result = await autocannon({
    url: target.url,
    connections,
    duration: seconds,
    headers,
    requests: [
      {
        setupRequest: (req) => {
          const r = request();
          return { ...req, method: r.method, path: r.path, body: r.body };
        },
      },
    ],
  });
  target.checkAlive();
  return {
    rps: result.requests.average,
    p50: result.latency.p50,
    p99: result.latency.p99,
    peak: memoryOf(target.pid, 'VmHWM'),
    errors: result.errors + result.non2xx + result.timeouts,
  };
}

const pick = (n: number) => Math.floor(Math.random() * n);
const companyId = (n: number) => `bc${String(pick(n)).padStart(6, '0')}`;
/** Pages are drawn from the first 24 (every company has at least 24 at 60 months), the same at any history. */
const pagesDrawn = Math.min(24, Math.ceil((40 * months) / 100));
const metricsPage = (company: () => string, pages: number) => () => ({
  method: 'GET' as const,
  path: `/v1/metrics/?company_id=${company()}&page_size=100&page=${1 + pick(pages)}`,
});
const companiesPage = (n: number) => () => ({
  method: 'GET' as const,
  path: `/v1/companies/?page_size=100&page=${1 + pick(Math.ceil(n / 100))}`,
});
const screen = () => ({
  method: 'GET' as const,
  path: '/v1/portfolio/screen/?status=active&sort_by=runway_months&page_size=5',
});
const toolCall = (tool: string, args: () => Record<string, unknown>) => () => ({
  method: 'POST' as const,
  path: '/mcp',
  body: JSON.stringify({
    jsonrpc: '2.0',
    id: 1,
    method: 'tools/call',
    params: { name: tool, arguments: args() },
  }),
});

/** The three cases of issue #24's targets, over one company picker and page count. */
function pageCases(company: () => string, pages: number, companiesPages: () => Request): Case[] {
  return [
    { name: 'REST metrics page', request: metricsPage(company, pages), work: true },
    { name: 'REST companies list', request: companiesPages, work: true },
    {
      name: 'MCP get_company_metrics (same rows)',
      request: toolCall('get_company_metrics', () => ({
        company_ids: [company()],
        page: 1 + pick(pages),
      })),
      work: false,
    },
  ];
}

interface Shape {
  name: string;
  url: string;
  /** The cases, and a sentence saying what they ask, once the service runs. */
  cases(server: Running): Promise<{ cases: Case[]; about: string }>;
}

function deepShape(url: string): Shape {
  return {
    name: 'Deep pages',
    url,
    cases: async () => ({
      about:
        `the bench firm (bench/generate.ts), ${companies} companies × ${months} months ` +
        `(${(companies * months * 40).toLocaleString('en')} metric rows); ` +
        `each request picks a random company and one of its first ${pagesDrawn} pages of 100.`,
      cases: [
        ...pageCases(() => companyId(companies), pagesDrawn, companiesPage(companies)),
        {
          name: 'MCP get_company_financial_summary (analytics)',
          request: toolCall('get_company_financial_summary', () => ({ company_id: companyId(companies) })),
          work: false,
        },
      ],
    }),
  };
}

function demoShape(url: string): Shape {
  return {
    name: 'Small pages',
    url,
    async cases(server) {
      const db = openDb(url);
      let top: { id: string; name: string; companies: number };
      try {
        const firm = db('firms').where({ slug: DEMO.firmSlug }).select('id');
        const row = (await db('metric_data as d')
          .join('companies as c', 'c.id', 'd.company_id')
          .whereIn('d.firm_id', firm)
          .whereNull('d.budget_id')
          .whereNull('d.deleted_at')
          .groupBy('c.id', 'c.name')
          .select('c.id', 'c.name')
          .count({ n: '*' })
          .orderBy([{ column: 'n', order: 'desc' }, 'c.id'])
          .first()) as { id: string; name: string };
        const count = (await db('companies').whereIn('firm_id', firm).count({ n: '*' }).first()) as {
          n: number | string;
        };
        top = { ...row, companies: Number(count.n) };
      } finally {
        await db.destroy();
      }
      // The page count as the service reports it (its default leaves out data off the fiscal calendar).
      const first = await fetch(`${server.url}/v1/metrics/?company_id=${top.id}&page_size=100`, { headers });
      const rows = ((await first.json()) as { count: number }).count;
      const pages = Math.ceil(rows / 100);
      return {
        about:
          `the demo data (db/seeds/demo.ts) with a token of its admin user (${DEMO.email}); the metrics ` +
          `pages of the company with the most metric rows (${top.name}: ${rows.toLocaleString('en')} rows, ` +
          `${pages} pages of 100), one at random a request, and the list of the firm's ${top.companies} companies.`,
        cases: pageCases(
          () => top.id,
          pages,
          () => ({ method: 'GET', path: '/v1/companies/?page_size=100' }),
        ),
      };
    },
  };
}

/** The URL of a database of the bench's own: bench/data/bench-NAME.db, or the schema bench_perf_NAME. */
async function place(dialect: string, name: string): Promise<string> {
  if (dialect === 'SQLite') {
    mkdirSync(join(root, 'bench/data'), { recursive: true });
    return `sqlite:${join(root, `bench/data/bench-${name}.db`)}`;
  }
  const schema = `bench_perf_${name}`;
  const admin = knexFactory({ client: 'pg', connection: postgresUrl!, pool: { min: 0, max: 1 } });
  await admin.raw(`create schema if not exists ${schema}`);
  await admin.destroy();
  return postgresSchemaUrl(postgresUrl!, schema);
}

/** The bench firm at n companies × m months. */
async function database(dialect: string, n: number, m: number): Promise<string> {
  const url = await place(dialect, `${n}x${m}`);
  const started = Date.now();
  const rows = await generate(url, n, m);
  if (rows >= 0)
    log(
      `  generated ${n} companies × ${m} months (${rows} metric rows) in ${((Date.now() - started) / 1000).toFixed(0)} s`,
    );
  return url;
}

async function demoDatabase(dialect: string): Promise<string> {
  const url = await place(dialect, 'demo');
  if (await generateDemo(url)) log('  loaded the demo data');
  return url;
}

let bytesFiles = 0;

/** The response the service gives, saved for the same-bytes baseline. */
async function capture(target: Running, request: Request): Promise<string> {
  const res = await fetch(target.url + request.path, {
    method: request.method,
    body: request.body,
    headers,
  });
  const body = await res.text();
  if (!res.ok) throw new Error(`${request.method} ${request.path}: ${res.status} ${body.slice(0, 300)}`);
  const file = join(tmpdir(), `bench-bytes-${process.pid}-${bytesFiles++}.json`);
  writeFileSync(file, JSON.stringify({ type: res.headers.get('content-type') ?? 'application/json', body }));
  return file;
}

/** The service and the same-work baseline answer the same bytes (checked before measuring). */
async function checkSameBytes(a: Running, b: Running, request: Request): Promise<boolean> {
  const get = async (t: Running) =>
    (await fetch(t.url + request.path, { headers: { Authorization: `Bearer ${BENCH_TOKEN}` } })).text();
  return (await get(a)) === (await get(b));
}

interface Row {
  name: string;
  service: Sample;
  work?: Sample;
  bytes: Sample;
}

interface ShapeResult {
  name: string;
  about: string;
  rows: Row[];
  sameBytes: boolean;
  /** Resident memory of the service a second after it started, MB. */
  idle: number;
  /** The highest peak resident memory over every case, MB. */
  peak: number;
}

interface DialectResult {
  dialect: string;
  shapes: ShapeResult[];
  /** `npm start` to the first /healthz answer, ms. */
  starts: number[];
  screen: ScreenTiming[];
  scales: { label: string; metrics: Sample; screen: Sample }[];
  history: { label: string; metrics: Sample }[];
}

/** Medians of the rounds; the peak is the highest. */
function medianSample(samples: Sample[]): Sample {
  return {
    rps: median(samples.map((s) => s.rps)),
    p50: median(samples.map((s) => s.p50)),
    p99: median(samples.map((s) => s.p99)),
    peak: Math.max(...samples.map((s) => s.peak)),
    errors: samples.reduce((a, s) => a + s.errors, 0),
  };
}

/** One shape's cases: the service and its baselines in interleaved rounds. */
async function measureShape(shape: Shape): Promise<ShapeResult> {
  const server = await service(shape.url);
  await delay(1000);
  const idle = memoryOf(server.pid, 'VmRSS');
  const work = await workBaseline(shape.url);
  const bytes: Running[] = [];
  const files: string[] = [];
  try {
    const { cases: list, about } = await shape.cases(server);
    log(`  ${shape.name}: ${about}`);
    const samples = list.map(() => ({
      service: [] as Sample[],
      work: [] as Sample[],
      bytes: [] as Sample[],
    }));
    let sameBytes = true;
    for (const c of list) {
      files.push(await capture(server, c.request()));
      bytes.push(await bytesBaseline(files.at(-1)!));
    }
    for (const c of list.filter((c) => c.work)) {
      for (let i = 0; i < 5; i++) sameBytes &&= await checkSameBytes(server, work, c.request());
    }
    log(`  the same-work baseline answers the service's bytes: ${sameBytes}`);
    // Warm-up, the baselines' too, as long as a round: the first requests compile and fill caches, and
    // V8 keeps optimising for several seconds of load (a second's warm-up measured the service's
    // compilation in its first rounds, not its cost per request). The service's peak memory during it
    // counts: it is load too.
    const warmUpPeaks: number[] = [];
    for (const [i, c] of list.entries()) {
      warmUpPeaks.push((await load(server, c.request, duration)).peak);
      if (c.work) await load(work, c.request, duration);
      await load(bytes[i]!, c.request, duration);
    }
    for (let round = 1; round <= rounds; round++) {
      for (const [i, c] of list.entries()) {
        samples[i]!.service.push(await load(server, c.request));
        if (c.work) samples[i]!.work.push(await load(work, c.request));
        samples[i]!.bytes.push(await load(bytes[i]!, c.request));
        const last = samples[i]!;
        log(
          `  round ${round} ${c.name}: service ${last.service.at(-1)!.rps.toFixed(0)}` +
            (c.work ? `, same work ${last.work.at(-1)!.rps.toFixed(0)}` : '') +
            `, same bytes ${last.bytes.at(-1)!.rps.toFixed(0)} req/s; peak ${last.service.at(-1)!.peak.toFixed(0)} MB`,
        );
      }
    }
    const rows: Row[] = list.map((c, i) => {
      const s = medianSample(samples[i]!.service);
      return {
        name: c.name,
        service: { ...s, peak: Math.max(s.peak, warmUpPeaks[i]!) },
        work: c.work ? medianSample(samples[i]!.work) : undefined,
        bytes: medianSample(samples[i]!.bytes),
      };
    });
    const peak = Math.max(...rows.map((r) => r.service.peak));
    return { name: shape.name, about, rows, sameBytes, idle, peak };
  } finally {
    for (const b of bytes) await b.stop();
    for (const f of files) rmSync(f);
    await work.stop();
    await server.stop();
  }
}

async function runDialect(dialect: 'SQLite' | 'PostgreSQL'): Promise<DialectResult> {
  log(`\n${dialect}`);
  const full = await database(dialect, companies, months);
  const demo = await demoDatabase(dialect);
  const starts = await startUp(demo, START_RUNS, root, (ms, run) =>
    log(`  npm start, run ${run}: ${ms.toFixed(0)} ms to /healthz`),
  );
  const shapes = [await measureShape(deepShape(full)), await measureShape(demoShape(demo))];

  // Scale: the same firm at 1 %, 10 % and 100 % of its companies, each in a database of its own.
  const scales: DialectResult['scales'] = [];
  for (const [label, n] of [
    ['1 %', Math.max(1, Math.round(companies / 100))],
    ['10 %', Math.max(1, Math.round(companies / 10))],
    ['100 %', companies],
  ] as const) {
    const url = n === companies ? full : await database(dialect, n, months);
    const s = await service(url);
    try {
      const page = metricsPage(() => companyId(n), pagesDrawn);
      await load(s, page, 1);
      const metrics = await load(s, page);
      const screenSample = await load(s, screen);
      scales.push({
        label: `${label} (${n} companies, ${(n * months * 40).toLocaleString('en')} rows)`,
        metrics,
        screen: screenSample,
      });
      log(`  ${label}: metrics p50 ${metrics.p50} ms, screen p50 ${screenSample.p50} ms`);
    } finally {
      await s.stop();
    }
  }

  // History: companies with 8 times the months, the same pages asked for.
  const history: DialectResult['history'] = [];
  for (const factor of [1, 8]) {
    const url = await database(dialect, 10, months * factor);
    const s = await service(url);
    try {
      const page = metricsPage(() => companyId(10), pagesDrawn);
      await load(s, page, 1);
      const metrics = await load(s, page);
      history.push({
        label: `${factor}× (${months * factor} months, ${(months * factor * 40).toLocaleString('en')} rows a company)`,
        metrics,
      });
      log(`  history ${factor}×: metrics p50 ${metrics.p50} ms, ${metrics.rps.toFixed(0)} req/s`);
    } finally {
      await s.stop();
    }
  }

  // The portfolio calls, one at a time, on the firm of issue #24's target.
  const s = await service(await database(dialect, SCREEN_COMPANIES, screenMonths));
  let screenTimings: ScreenTiming[];
  try {
    screenTimings = await timeScreenCalls(s.url, screenRuns);
  } finally {
    await s.stop();
  }
  for (const t of screenTimings)
    log(`  ${t.label}: p50 ${t.median.toFixed(0)} ms (first ${t.first.toFixed(0)})`);
  return { dialect, shapes, starts, screen: screenTimings, scales, history };
}

/** node_modules as installed (du), and the part package-lock.json does not mark `"dev": true`. */
function installSize() {
  const modules = realpathSync(join(root, 'node_modules'));
  const lock = JSON.parse(readFileSync(join(root, 'package-lock.json'), 'utf8')) as {
    packages: Record<string, { dev?: boolean }>;
  };
  // Packages for other platforms are in the lock but not installed.
  const installed = Object.entries(lock.packages).filter(
    ([path]) => path.startsWith('node_modules/') && existsSync(join(modules, '..', path)),
  );
  const runtime = installed.filter(([, entry]) => !entry.dev).map(([path]) => join(modules, '..', path));
  const kb = (args: string[]) =>
    execFileSync('du', ['-sk', ...args], { encoding: 'utf8' })
      .trim()
      .split('\n')
      .reduce((sum, line) => sum + Number(line.split('\t')[0]), 0);
  return {
    packages: installed.length,
    mb: kb([modules]) / 1024,
    runtimePackages: runtime.length,
    // Each package without the packages nested in it, which are counted on their own lines.
    runtimeMb: kb(['--exclude=node_modules', ...runtime]) / 1024,
  };
}

const fmt = (x: number) => x.toFixed(0);
const ratio = (a: number, b: number) => (b > 0 ? (a / b).toFixed(2) : 'n/a');
const verdict = (ok: boolean, by?: string) => (ok ? 'met' : `**missed**${by ? ` (${by})` : ''}`);

const loads = (l: number[]) => l.map((x) => x.toFixed(2)).join(', ');

function caseTable(shape: ShapeResult): string[] {
  return [
    '| Case | service req/s | p50 / p99 ms | peak RSS MB | same work req/s | × same work | same bytes req/s | × same bytes | errors |',
    '|---|---:|---:|---:|---:|---:|---:|---:|---:|',
    ...shape.rows.map(
      (x) =>
        `| ${x.name} | ${fmt(x.service.rps)} | ${x.service.p50} / ${x.service.p99} | ${fmt(x.service.peak)} | ` +
        `${x.work ? fmt(x.work.rps) : '—'} | ${x.work ? ratio(x.service.rps, x.work.rps) : '—'} | ` +
        `${fmt(x.bytes.rps)} | ${ratio(x.service.rps, x.bytes.rps)} | ${x.service.errors} |`,
    ),
  ];
}

const missBy = (got: number, want: number) => `${((1 - got / want) * 100).toFixed(0)} % short`;

/** The fixed-cost targets of issue #24 on one shape. */
function shapeTargets(shape: ShapeResult): string[] {
  const get = (name: string) => shape.rows.find((x) => x.name.startsWith(name))!;
  const metrics = get('REST metrics page');
  const mcp = get('MCP get_company_metrics');
  const againstWork = (row: Row) => {
    const r = row.service.rps / row.work!.rps;
    return `| ${shape.name}: ${row.name} ≥ 0.75 × same work | ${ratio(row.service.rps, row.work!.rps)} × | ${verdict(r >= 0.75, missBy(r, 0.75))} |`;
  };
  const mcpRatio = mcp.service.rps / metrics.service.rps;
  return [
    againstWork(metrics),
    againstWork(get('REST companies list')),
    `| ${shape.name}: MCP get_company_metrics ≥ 0.85 × REST metrics page | ${ratio(mcp.service.rps, metrics.service.rps)} × | ${verdict(mcpRatio >= 0.85, missBy(mcpRatio, 0.85))} |`,
  ];
}

function report(
  results: DialectResult[],
  install: ReturnType<typeof installSize>,
  load: { start: number[]; end: number[] },
): string {
  const lines = [
    '# Benchmark results',
    '',
    `Generated by \`npm run bench${quick ? ' -- --quick' : ''}\` on ${new Date().toISOString().slice(0, 10)}: ` +
      `${cpus().length} cores, ${(totalmem() / 2 ** 30).toFixed(0)} GiB, Node ${execFileSync(node, ['--version']).toString().trim()}; ` +
      `autocannon, ${connections} connections, ${duration} s per measurement, a warm-up of the same length ` +
      `for every server and case, ${rounds} interleaved rounds ` +
      '(service, same-work baseline, same-bytes baseline for each case in turn), medians' +
      `${quick ? ' — the quick mode: a tenth of the 2.4-million-row firm, shorter rounds, the portfolio calls at 24 months instead of 120' : ''}. ` +
      'The service is the compiled build as `npm start` ' +
      `runs it (\`${Object.entries(startEnv)
        .map(([k, v]) => `${k}=${v} `)
        .join('')}node ${startCommand.join(' ')}\`).`,
    '',
    `Load average (1, 5, 15 minutes; the machine is shared with other work): ${loads(load.start)} at the start, ` +
      `${loads(load.end)} at the end.`,
    '',
    'Two shapes of data, each in a database of its own: **deep pages**, the bench firm (bench/generate.ts), ' +
      'where the queries dominate; **small pages**, the demo data, where the cost of the service around the ' +
      'queries does. Baselines (bench/baseline.ts, bare `node:http`): **same work** hashes the token and ' +
      "resolves it with its user and firm, records its use once a minute, reads the user's company access, " +
      'checks the company, counts, reads the page and its FX rates (companies: their funds) with statements ' +
      "prepared once, and answers the same JSON — the run checks that its bytes equal the service's; " +
      '**same bytes** replies a response the service gave for that case, whatever the request.',
    '',
    "Peak RSS is the service process's high-water mark (VmHWM in /proc/PID/status), set back to the " +
      'resident size (`echo 5 > /proc/PID/clear_refs`) before each measurement and read after it: per case ' +
      'the highest over its warm-up and rounds, and the peak under load the highest over every case of both ' +
      'shapes (each shape runs its own service process). Start-up is `npm start` (bench/start.ts) on the ' +
      `demo database and the existing build, from spawn to the first 200 of /healthz, the median of ${START_RUNS} ` +
      'after a first start that is not counted. The portfolio calls (bench/screen.ts) are REST calls one at ' +
      `a time to the compiled server on ${SCREEN_COMPANIES.toLocaleString('en')} generated companies × ` +
      `${screenMonths} months (${(SCREEN_COMPANIES * screenMonths * 40).toLocaleString('en')} metric rows), ` +
      `the median of ${screenRuns} after a first call that is reported apart (a cold server computes from the rows).`,
  ];
  for (const r of results) {
    const [deep] = r.shapes;
    const peak = Math.max(...r.shapes.map((s) => s.peak));
    const startMs = median(r.starts);
    const m1 = r.scales[0]!.metrics.p50;
    const m100 = r.scales.at(-1)!.metrics.p50;
    const h1 = r.history[0]!.metrics;
    const h8 = r.history[1]!.metrics;
    lines.push('', `## ${r.dialect}`);
    for (const shape of r.shapes) {
      lines.push(
        '',
        `### ${shape.name}`,
        '',
        `${shape.about[0]!.toUpperCase()}${shape.about.slice(1)}`,
        '',
        ...caseTable(shape),
        '',
        `The same-work baseline answered byte-identical responses: ${shape.sameBytes ? 'yes' : '**no**'}. ` +
          `Resident memory a second after start: ${fmt(shape.idle)} MB.`,
      );
    }
    lines.push(
      '',
      `### Portfolio calls at ${SCREEN_COMPANIES.toLocaleString('en')} companies × ${screenMonths} months`,
      '',
      ...screenTable(r.screen),
      '',
      '### Scale and history (deep pages)',
      '',
      '| Data set | metrics page p50 ms | req/s | screen_companies p50 ms | req/s |',
      '|---|---:|---:|---:|---:|',
      ...r.scales.map(
        (s) =>
          `| ${s.label} | ${s.metrics.p50} | ${fmt(s.metrics.rps)} | ` +
          (s.screen.rps > 0
            ? `${s.screen.p50} | ${fmt(s.screen.rps)} |`
            : 'every call over 10 s (timed out) | 0 |'),
      ),
      ...r.history.map((h) => `| one company, ${h.label} | ${h.metrics.p50} | ${fmt(h.metrics.rps)} | | |`),
      '',
      '### Targets',
      '',
      '| Target | Figure | Result |',
      '|---|---|---|',
      ...r.shapes.flatMap(shapeTargets),
      `| peak RSS under the load (VmHWM) ≤ 160 MB | ${fmt(peak)} MB (${r.shapes
        .map((s) => `${s.name.toLowerCase()} ${fmt(s.peak)}`)
        .join(', ')}; idle ${fmt(deep!.idle)}) | ${verdict(peak <= 160, `${fmt(peak - 160)} MB over`)} |`,
      `| start-up, \`npm start\` to /healthz ≤ 1 s | ${(startMs / 1000).toFixed(2)} s (runs ${r.starts.map(fmt).join(', ')} ms) | ${verdict(startMs <= 1000, `${fmt(startMs - 1000)} ms over`)} |`,
      ...r.screen.map(
        (t) =>
          `| ${t.label} p50 ≤ 100 ms at ${SCREEN_COMPANIES.toLocaleString('en')} × ${screenMonths} months | ` +
          `${fmt(t.median)} ms | ${verdict(t.median <= 100, `${fmt(t.median - 100)} ms over`)} |`,
      ),
      `| metrics page p50 at 100 % ≤ 1.3 × at 1 % | ${m100} vs ${m1} ms | ${verdict(m100 <= 1.3 * Math.max(m1, 1))} |`,
      `| one company at 8× history ≤ 1.5 × at 1× | p50 ${h8.p50} vs ${h1.p50} ms, ${ratio(h1.rps, h8.rps)} × the time per request | ${verdict(h1.rps <= 1.5 * h8.rps)} |`,
    );
  }
  lines.push(
    '',
    '## Install size',
    '',
    '`du` of node_modules as installed; "runtime only" sums the packages package-lock.json does not mark ' +
      '`"dev": true` (each without the packages nested in it, which count on their own). No target.',
    '',
    '| | packages | MB |',
    '|---|---:|---:|',
    `| node_modules | ${install.packages} | ${fmt(install.mb)} |`,
    `| runtime only | ${install.runtimePackages} | ${fmt(install.runtimeMb)} |`,
    '',
    'p50/p99 are whole milliseconds as autocannon reports them. The cost per request at 8× history is the ' +
      'ratio of throughputs.',
    '',
  );
  return lines.join('\n');
}

/** Keeps the sections other scripts write into RESULTS.md (between their markers) and the notes below ours. */
function merge(generated: string): string {
  const file = join(root, 'bench/RESULTS.md');
  let old = '';
  try {
    old = readFileSync(file, 'utf8');
  } catch {
    // first run
  }
  const keepFrom = old.indexOf('<!-- kept -->');
  return keepFrom >= 0 ? `${generated}\n${old.slice(keepFrom)}` : generated;
}

const loadAtStart = loadavg();
log('building dist/');
execFileSync('npm', ['run', 'build'], { cwd: root, stdio: 'inherit' });
const install = installSize();
log(`node_modules: ${fmt(install.mb)} MB, runtime only ${fmt(install.runtimeMb)} MB`);
const results: DialectResult[] = [await runDialect('SQLite')];
if (postgresUrl) results.push(await runDialect('PostgreSQL'));
writeFileSync(
  join(root, 'bench/RESULTS.md'),
  merge(report(results, install, { start: loadAtStart, end: loadavg() })),
);
log('\nwrote bench/RESULTS.md');
