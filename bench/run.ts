// `npm run bench`: the compiled server (what `npm start` runs) against two bare node:http baselines
// (bench/baseline.ts): one doing the same work with statements prepared once, one replying the same
// bytes. Rounds are interleaved (service, same work, same bytes, for every case in turn) and each figure
// is the median over the rounds. On SQLite and, when BENCH_DATABASE_URL or TEST_DATABASE_URL names a
// PostgreSQL, on PostgreSQL (in schemas of its own). Writes bench/RESULTS.md.
// Options: --quick (a smaller firm, shorter rounds: a few minutes), --companies N (1000), --months M (60),
// --duration S (8), --rounds R (3), --connections C (10).
import { type ChildProcess, execFileSync, spawn } from 'node:child_process';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { cpus, loadavg, tmpdir, totalmem } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import autocannon from 'autocannon';
import knexFactory from 'knex';
import { BENCH_TOKEN, generate } from './generate.ts';

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
const postgresUrl = process.env.BENCH_DATABASE_URL ?? process.env.TEST_DATABASE_URL;
const PUBLIC_URL = 'http://bench.local';
const node = join(root, 'node_modules/.bin/node');
/** The heap cap of `npm start`, read from package.json so the bench runs what operators run. */
const startFlags = (
  JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')) as { scripts: { start: string } }
).scripts.start
  .split(' ')
  .filter((a) => a.startsWith('--'));

function log(message: string): void {
  process.stderr.write(`${message}\n`);
}

const median = (xs: number[]) => {
  const s = [...xs].sort((a, b) => a - b);
  return s.length === 0
    ? 0
    : s.length % 2
      ? s[(s.length - 1) / 2]!
      : (s[s.length / 2 - 1]! + s[s.length / 2]!) / 2;
};

function rssOf(pid: number): number {
  try {
    return Number(/VmRSS:\s+(\d+)/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))?.[1] ?? 0) / 1024;
  } catch {
    return 0;
  }
}

interface Running {
  url: string;
  startMs: number;
  peakRss(): number;
  resetPeak(): void;
  stop(): Promise<void>;
}

let nextPort = 18100 + Math.floor(Math.random() * 500) * 4;

/** Starts a process and resolves once `health` answers (any status). */
async function launch(command: string[], env: Record<string, string>, health: string): Promise<Running> {
  const port = nextPort++;
  const started = performance.now();
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
  for (;;) {
    if (child.exitCode !== null) throw new Error(`${command.join(' ')} exited with ${child.exitCode}`);
    try {
      await (await fetch(url + health)).arrayBuffer();
      break;
    } catch {
      await new Promise((r) => setTimeout(r, 5));
    }
  }
  const startMs = performance.now() - started;
  let peak = 0;
  const timer = setInterval(() => {
    peak = Math.max(peak, rssOf(child.pid!));
  }, 50);
  return {
    url,
    startMs,
    peakRss: () => Math.max(peak, rssOf(child.pid!)),
    resetPeak: () => {
      peak = rssOf(child.pid!);
    },
    async stop() {
      clearInterval(timer);
      const exited = new Promise((r) => child.once('exit', r));
      child.kill('SIGTERM');
      await exited;
    },
  };
}

const service = (url: string) =>
  launch([node, ...startFlags, 'dist/cli/portfolio.js', 'serve'], serviceEnv(url), '/readyz');
const serviceEnv = (url: string) => ({
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
  rss: number;
  errors: number;
}

async function load(target: Running, request: () => Request, seconds = duration): Promise<Sample> {
  target.resetPeak();
  const result = await autocannon({
    url: target.url,
    connections,
    duration: seconds,
    headers: {
      Authorization: `Bearer ${BENCH_TOKEN}`,
      'Content-Type': 'application/json',
      Accept: 'application/json, text/event-stream',
    },
    requests: [
      {
        setupRequest: (req) => {
          const r = request();
          return { ...req, method: r.method, path: r.path, body: r.body };
        },
      },
    ],
  });
  return {
    rps: result.requests.average,
    p50: result.latency.p50,
    p99: result.latency.p99,
    rss: target.peakRss(),
    errors: result.errors + result.non2xx + result.timeouts,
  };
}

const pick = (n: number) => Math.floor(Math.random() * n);
const companyId = (n: number) => `bc${String(pick(n)).padStart(6, '0')}`;
/** Pages are drawn from the first 24 (every company has at least 24 at 60 months), the same at any history. */
const pagesDrawn = Math.min(24, Math.ceil((40 * months) / 100));
const metricsPage = (n: number) => () => ({
  method: 'GET' as const,
  path: `/v1/metrics/?company_id=${companyId(n)}&page_size=100&page=${1 + pick(pagesDrawn)}`,
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

function cases(n: number): Case[] {
  return [
    { name: 'REST metrics page', request: metricsPage(n), work: true },
    { name: 'REST companies list', request: companiesPage(n), work: true },
    {
      name: 'MCP get_company_metrics (same rows)',
      request: toolCall('get_company_metrics', () => ({
        company_ids: [companyId(n)],
        page: 1 + pick(pagesDrawn),
      })),
      work: false,
    },
    {
      name: 'MCP get_company_financial_summary (analytics)',
      request: toolCall('get_company_financial_summary', () => ({ company_id: companyId(n) })),
      work: false,
    },
  ];
}

function postgresSchemaUrl(base: string, schema: string): string {
  return `${base}${base.includes('?') ? '&' : '?'}options=-c%20search_path%3D${schema}`;
}

async function database(dialect: string, n: number, m: number): Promise<string> {
  let url: string;
  if (dialect === 'SQLite') {
    mkdirSync(join(root, 'bench/data'), { recursive: true });
    url = `sqlite:${join(root, `bench/data/bench-${n}x${m}.db`)}`;
  } else {
    const schema = `bench_perf_${n}x${m}`;
    const admin = knexFactory({ client: 'pg', connection: postgresUrl!, pool: { min: 0, max: 1 } });
    await admin.raw(`create schema if not exists ${schema}`);
    await admin.destroy();
    url = postgresSchemaUrl(postgresUrl!, schema);
  }
  const started = Date.now();
  const rows = await generate(url, n, m);
  if (rows >= 0)
    log(
      `  generated ${n} companies × ${m} months (${rows} metric rows) in ${((Date.now() - started) / 1000).toFixed(0)} s`,
    );
  return url;
}

/** The response the service gives, saved for the same-bytes baseline. */
async function capture(target: Running, request: Request): Promise<string> {
  const res = await fetch(target.url + request.path, {
    method: request.method,
    body: request.body,
    headers: {
      Authorization: `Bearer ${BENCH_TOKEN}`,
      'Content-Type': 'application/json',
      Accept: 'application/json, text/event-stream',
    },
  });
  const body = await res.text();
  if (!res.ok) throw new Error(`${request.method} ${request.path}: ${res.status} ${body.slice(0, 300)}`);
  const file = join(tmpdir(), `bench-bytes-${process.pid}-${nextPort}.json`);
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

interface DialectResult {
  dialect: string;
  rows: Row[];
  sameBytes: boolean;
  startMs: number;
  idleRss: number;
  peakRss: number;
  scales: { label: string; metrics: Sample; screen: Sample }[];
  history: { label: string; metrics: Sample }[];
}

function medianSample(samples: Sample[]): Sample {
  return {
    rps: median(samples.map((s) => s.rps)),
    p50: median(samples.map((s) => s.p50)),
    p99: median(samples.map((s) => s.p99)),
    rss: Math.max(...samples.map((s) => s.rss)),
    errors: samples.reduce((a, s) => a + s.errors, 0),
  };
}

async function startUp(url: string): Promise<number> {
  const times: number[] = [];
  for (let i = 0; i < 5; i++) {
    const s = await service(url);
    times.push(s.startMs);
    await s.stop();
  }
  return median(times);
}

async function runDialect(dialect: 'SQLite' | 'PostgreSQL'): Promise<DialectResult> {
  log(`\n${dialect}`);
  const full = await database(dialect, companies, months);
  const startMs = await startUp(full);
  log(`  start-up on an existing database: ${startMs.toFixed(0)} ms (median of 5)`);

  const server = await service(full);
  await new Promise((r) => setTimeout(r, 1000));
  const idleRss = server.peakRss();
  const work = await workBaseline(full);
  const list = cases(companies);
  const bytes: Running[] = [];
  const samples = list.map(() => ({ service: [] as Sample[], work: [] as Sample[], bytes: [] as Sample[] }));
  let sameBytes = true;
  try {
    for (const c of list) bytes.push(await bytesBaseline(await capture(server, c.request())));
    for (const c of list.filter((c) => c.work)) {
      for (let i = 0; i < 5; i++) sameBytes &&= await checkSameBytes(server, work, c.request());
    }
    log(`  the same-work baseline answers the service's bytes: ${sameBytes}`);
    // Warm-up: the first requests compile and fill caches.
    for (const c of list) await load(server, c.request, 1);
    for (let round = 1; round <= rounds; round++) {
      for (const [i, c] of list.entries()) {
        samples[i]!.service.push(await load(server, c.request));
        if (c.work) samples[i]!.work.push(await load(work, c.request));
        samples[i]!.bytes.push(await load(bytes[i]!, c.request));
        const last = samples[i]!;
        log(
          `  round ${round} ${c.name}: service ${last.service.at(-1)!.rps.toFixed(0)}` +
            (c.work ? `, same work ${last.work.at(-1)!.rps.toFixed(0)}` : '') +
            `, same bytes ${last.bytes.at(-1)!.rps.toFixed(0)} req/s`,
        );
      }
    }
  } finally {
    for (const b of bytes) await b.stop();
    await work.stop();
    await server.stop();
  }
  const rows: Row[] = list.map((c, i) => ({
    name: c.name,
    service: medianSample(samples[i]!.service),
    work: c.work ? medianSample(samples[i]!.work) : undefined,
    bytes: medianSample(samples[i]!.bytes),
  }));

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
      await load(s, metricsPage(n), 1);
      const metrics = await load(s, metricsPage(n));
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
      await load(s, metricsPage(10), 1);
      const metrics = await load(s, metricsPage(10));
      history.push({
        label: `${factor}× (${months * factor} months, ${(months * factor * 40).toLocaleString('en')} rows a company)`,
        metrics,
      });
      log(`  history ${factor}×: metrics p50 ${metrics.p50} ms, ${metrics.rps.toFixed(0)} req/s`);
    } finally {
      await s.stop();
    }
  }
  const peakRss = Math.max(...rows.map((r) => r.service.rss));
  return { dialect, rows, sameBytes, startMs, idleRss, peakRss, scales, history };
}

const fmt = (x: number) => x.toFixed(0);
const ratio = (a: number, b: number) => (b > 0 ? (a / b).toFixed(2) : 'n/a');
const verdict = (ok: boolean, by?: string) => (ok ? 'met' : `**missed**${by ? ` (${by})` : ''}`);

function report(results: DialectResult[], started: { load: number }): string {
  const lines = [
    '# Benchmark results',
    '',
    `Generated by \`npm run bench${quick ? ' -- --quick' : ''}\` on ${new Date().toISOString().slice(0, 10)}: ` +
      `${cpus().length} cores (1-minute load average ${started.load.toFixed(1)} at the start, shared with other work), ` +
      `${(totalmem() / 2 ** 30).toFixed(0)} GiB, Node ${execFileSync(node, ['--version']).toString().trim()}; ` +
      `${companies} companies × ${months} months (${(companies * months * 40).toLocaleString('en')} metric rows)` +
      `${quick ? ' — the quick mode: a tenth of the 2.4-million-row firm and shorter rounds' : ''}; ` +
      `autocannon, ${connections} connections, ${duration} s per measurement, ${rounds} interleaved rounds ` +
      '(service, same-work baseline, same-bytes baseline for each case in turn), medians. Each request picks ' +
      `a random company and one of its first ${pagesDrawn} pages. The service is the compiled build as \`npm start\` ` +
      `runs it (\`node ${startFlags.join(' ')} dist/cli/portfolio.js serve\`).`,
    '',
    'Baselines (bench/baseline.ts, bare `node:http`): **same work** hashes the token and resolves it with its ' +
      "user and firm, records its use once a minute, reads the user's company access, checks the company, " +
      'counts, reads the page and its FX rates (companies: their funds) with statements prepared once, and ' +
      "answers the same JSON — the run checks that its bytes equal the service's; **same bytes** replies " +
      'a response the service gave for that case, whatever the request.',
  ];
  for (const r of results) {
    const get = (name: string) => r.rows.find((x) => x.name.startsWith(name))!;
    const metrics = get('REST metrics page');
    const comp = get('REST companies list');
    const mcp = get('MCP get_company_metrics');
    const m1 = r.scales[0]!.metrics.p50;
    const m100 = r.scales.at(-1)!.metrics.p50;
    const h1 = r.history[0]!.metrics;
    const h8 = r.history[1]!.metrics;
    const restWork = (row: Row) => row.service.rps / (row.work?.rps ?? 1);
    const missBy = (got: number, want: number) => `${((1 - got / want) * 100).toFixed(0)} % short`;
    lines.push(
      '',
      `## ${r.dialect}`,
      '',
      '| Case | service req/s | p50 / p99 ms | same work req/s | × same work | same bytes req/s | × same bytes | errors |',
      '|---|---:|---:|---:|---:|---:|---:|---:|',
      ...r.rows.map(
        (x) =>
          `| ${x.name} | ${fmt(x.service.rps)} | ${x.service.p50} / ${x.service.p99} | ` +
          `${x.work ? fmt(x.work.rps) : '—'} | ${x.work ? ratio(x.service.rps, x.work.rps) : '—'} | ` +
          `${fmt(x.bytes.rps)} | ${ratio(x.service.rps, x.bytes.rps)} | ${x.service.errors} |`,
      ),
      '',
      `The same-work baseline answered byte-identical responses: ${r.sameBytes ? 'yes' : '**no**'}.`,
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
      '| Target | Figure | Result |',
      '|---|---|---|',
      `| REST metrics page ≥ 0.75 × same work | ${ratio(metrics.service.rps, metrics.work!.rps)} × | ${verdict(restWork(metrics) >= 0.75, missBy(restWork(metrics), 0.75))} |`,
      `| REST companies list ≥ 0.75 × same work | ${ratio(comp.service.rps, comp.work!.rps)} × | ${verdict(restWork(comp) >= 0.75, missBy(restWork(comp), 0.75))} |`,
      `| MCP get_company_metrics ≥ 0.85 × REST metrics page | ${ratio(mcp.service.rps, metrics.service.rps)} × | ${verdict(mcp.service.rps >= 0.85 * metrics.service.rps, missBy(mcp.service.rps / metrics.service.rps, 0.85))} |`,
      `| peak RSS under load ≤ 160 MB | ${fmt(r.peakRss)} MB (idle ${fmt(r.idleRss)} MB) | ${verdict(r.peakRss <= 160, `${fmt(r.peakRss - 160)} MB over`)} |`,
      `| start-up on an existing database ≤ 0.5 s | ${(r.startMs / 1000).toFixed(2)} s | ${verdict(r.startMs <= 500, `${fmt(r.startMs - 500)} ms over`)} |`,
      `| metrics page p50 at 100 % ≤ 1.3 × at 1 % | ${m100} vs ${m1} ms | ${verdict(m100 <= 1.3 * Math.max(m1, 1))} |`,
      `| one company at 8× history ≤ 1.5 × at 1× | p50 ${h8.p50} vs ${h1.p50} ms, ${ratio(h1.rps, h8.rps)} × the time per request | ${verdict(h1.rps <= 1.5 * h8.rps)} |`,
    );
  }
  lines.push(
    '',
    'p50/p99 are whole milliseconds as autocannon reports them. Peak RSS is sampled from /proc every 50 ms ' +
      'while the service is under load; start-up is the median of five starts, from spawn to the first ' +
      'answer of /readyz. The cost per request at 8× history is the ratio of throughputs.',
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

const started = { load: loadavg()[0]! };
log('building dist/');
execFileSync('npm', ['run', 'build'], { cwd: root, stdio: 'inherit' });
const results: DialectResult[] = [await runDialect('SQLite')];
if (postgresUrl) results.push(await runDialect('PostgreSQL'));
writeFileSync(join(root, 'bench/RESULTS.md'), merge(report(results, started)));
log('\nwrote bench/RESULTS.md');
