// `npm run bench`: measures the real server against a bare baseline at 20 connections with autocannon,
// on SQLite and (when BENCH_DATABASE_URL or TEST_DATABASE_URL names a PostgreSQL) on PostgreSQL, and
// writes bench/RESULTS.md. Options: --companies N (default 1000), --months M (60), --duration S (10).
import { type ChildProcess, spawn } from 'node:child_process';
import { mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { cpus, totalmem } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import autocannon from 'autocannon';
import knexFactory from 'knex';
import { migrateLatest, openDb } from '../db/knex.ts';
import { BENCH_TOKEN, generate } from './generate.ts';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const { values } = parseArgs({
  options: {
    companies: { type: 'string', default: '1000' },
    months: { type: 'string', default: '60' },
    duration: { type: 'string', default: '10' },
  },
});
const companies = Number(values.companies);
const months = Number(values.months);
const duration = Number(values.duration);
const pagesPerCompany = Math.ceil((40 * months) / 100);
const postgresUrl = process.env.BENCH_DATABASE_URL ?? process.env.TEST_DATABASE_URL;

interface Measure {
  name: string;
  rps: number;
  p50: number;
  p99: number;
  rssMb: number;
  errors: number;
}

interface Running {
  url: string;
  child: ChildProcess;
  peakRss(): number;
  resetPeak(): void;
  stop(): Promise<void>;
}

function log(message: string): void {
  process.stderr.write(`${message}\n`);
}

function rssOf(pid: number): number {
  try {
    const status = readFileSync(`/proc/${pid}/status`, 'utf8');
    return Number(/VmRSS:\s+(\d+)/.exec(status)?.[1] ?? 0) / 1024;
  } catch {
    return 0;
  }
}

async function waitFor(url: string, timeoutMs = 30000): Promise<void> {
  const end = Date.now() + timeoutMs;
  while (Date.now() < end) {
    try {
      if ((await fetch(url)).ok) return;
    } catch {
      // not up yet
    }
    await new Promise((r) => setTimeout(r, 20));
  }
  throw new Error(`${url} did not answer within ${timeoutMs} ms`);
}

let nextPort = 18100;

async function launch(
  args: string[],
  env: Record<string, string>,
  health: string,
): Promise<Running & { startMs: number }> {
  const port = nextPort++;
  const started = Date.now();
  const child = spawn(
    process.execPath,
    ['--import', 'tsx', ...args.map((a) => a.replace('$PORT', String(port)))],
    {
      cwd: root,
      env: { ...process.env, ...env, PORT: String(port), HOST: '127.0.0.1', LOG_LEVEL: 'warn' },
      stdio: ['ignore', 'ignore', 'inherit'],
    },
  );
  const url = `http://127.0.0.1:${port}`;
  await waitFor(url + health);
  const startMs = Date.now() - started;
  let peak = 0;
  const timer = setInterval(() => {
    peak = Math.max(peak, rssOf(child.pid!));
  }, 50);
  return {
    url,
    child,
    startMs,
    peakRss: () => Math.max(peak, rssOf(child.pid!)),
    resetPeak: () => {
      peak = 0;
    },
    async stop() {
      clearInterval(timer);
      child.kill('SIGTERM');
      await new Promise((r) => child.once('exit', r));
    },
  };
}

function companyId(): string {
  return `bc${String(Math.floor(Math.random() * currentCompanies)).padStart(6, '0')}`;
}
let currentCompanies = companies;

async function load(
  name: string,
  target: Running,
  request: () => { method: 'GET' | 'POST'; path: string; body?: string },
): Promise<Measure> {
  target.resetPeak();
  const result = await autocannon({
    url: target.url,
    connections: 20,
    duration,
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
  const errors = result.errors + result.non2xx;
  const m: Measure = {
    name,
    rps: result.requests.average,
    p50: result.latency.p50,
    p99: result.latency.p99,
    rssMb: target.peakRss(),
    errors,
  };
  log(
    `  ${name}: ${m.rps.toFixed(0)} req/s, p50 ${m.p50} ms, p99 ${m.p99} ms, rss ${m.rssMb.toFixed(0)} MB, errors ${errors}`,
  );
  return m;
}

const metricsRequest = () => ({
  method: 'GET' as const,
  path: `/v1/metrics/?company_id=${companyId()}&page_size=100&page=${1 + Math.floor(Math.random() * pagesPerCompany)}`,
});
const companiesRequest = () => ({
  method: 'GET' as const,
  path: `/v1/companies/?page=${1 + Math.floor(Math.random() * Math.ceil(currentCompanies / 100))}`,
});
const toolRequest = (tool: string, args: () => Record<string, unknown>) => () => ({
  method: 'POST' as const,
  path: '/mcp',
  body: JSON.stringify({
    jsonrpc: '2.0',
    id: 1,
    method: 'tools/call',
    params: { name: tool, arguments: args() },
  }),
});

interface DialectResult {
  dialect: string;
  rows: Measure[];
  scales: { scale: string; p50: number; rps: number }[];
  startMs: number;
}

async function ensureData(url: string, n: number): Promise<void> {
  const started = Date.now();
  const rows = await generate(url, n, months);
  if (rows >= 0)
    log(
      `  generated ${n} companies (${rows} metric rows) in ${((Date.now() - started) / 1000).toFixed(0)} s`,
    );
}

function postgresSchemaUrl(base: string, schema: string): string {
  return `${base}${base.includes('?') ? '&' : '?'}options=-c%20search_path%3D${schema}`;
}

async function runDialect(dialect: 'SQLite' | 'PostgreSQL'): Promise<DialectResult> {
  log(`\n${dialect}`);
  const scales = [
    { label: '1 %', n: Math.max(1, Math.round(companies / 100)) },
    { label: '10 %', n: Math.max(1, Math.round(companies / 10)) },
    { label: '100 %', n: companies },
  ];
  const urls = new Map<number, string>();
  for (const { n } of scales) {
    let url: string;
    if (dialect === 'SQLite') {
      mkdirSync(join(root, 'bench/data'), { recursive: true });
      url = `sqlite:${join(root, `bench/data/bench-${n}x${months}.db`)}`;
    } else {
      const schema = `bench_${n}x${months}`;
      const admin = knexFactory({ client: 'pg', connection: postgresUrl!, pool: { min: 0, max: 1 } });
      await admin.raw(`create schema if not exists ${schema}`);
      await admin.destroy();
      url = postgresSchemaUrl(postgresUrl!, schema);
    }
    await ensureData(url, n);
    urls.set(n, url);
  }
  const env = (url: string) => ({ DATABASE_URL: url, RATE_LIMIT_PER_MINUTE: '100000000' });
  const full = urls.get(companies)!;
  currentCompanies = companies;
  const server = await launch(['bench/serve.ts'], env(full), '/readyz');
  log(`  start-up on an existing database: ${server.startMs} ms`);
  const baseline = await launch(['bench/baseline.ts', full, '$PORT'], {}, '/v1/companies/');
  const rows: Measure[] = [];
  try {
    rows.push(await load('REST metrics page', server, metricsRequest));
    rows.push(await load('baseline metrics page', baseline, metricsRequest));
    rows.push(await load('REST companies list', server, companiesRequest));
    rows.push(await load('baseline companies list', baseline, companiesRequest));
    rows.push(
      await load(
        'MCP get_company_metrics',
        server,
        toolRequest('get_company_metrics', () => ({
          company_ids: [companyId()],
          page: 1 + Math.floor(Math.random() * pagesPerCompany),
        })),
      ),
    );
    rows.push(
      await load(
        'MCP get_company_financial_summary',
        server,
        toolRequest('get_company_financial_summary', () => ({ company_id: companyId() })),
      ),
    );
  } finally {
    await baseline.stop();
    await server.stop();
  }
  const scaleRows: DialectResult['scales'] = [];
  for (const { label, n } of scales) {
    currentCompanies = n;
    const s = await launch(['bench/serve.ts'], env(urls.get(n)!), '/readyz');
    try {
      const m = await load(`REST metrics page at ${label}`, s, metricsRequest);
      scaleRows.push({ scale: `${label} (${n} companies)`, p50: m.p50, rps: m.rps });
    } finally {
      await s.stop();
    }
  }
  return { dialect, rows, scales: scaleRows, startMs: server.startMs };
}

async function seedSeconds(): Promise<number> {
  const file = join(root, 'bench/data/seed-timing.db');
  rmSync(file, { force: true });
  const db = openDb(`sqlite:${file}`);
  try {
    await migrateLatest(db);
    const { seedDemo } = await import('../db/seeds/demo.ts');
    const started = Date.now();
    await seedDemo(db);
    return (Date.now() - started) / 1000;
  } finally {
    await db.destroy();
    rmSync(file, { force: true });
  }
}

function ratio(a: number, b: number): string {
  return b > 0 ? (a / b).toFixed(2) : 'n/a';
}

function verdict(ok: boolean): string {
  return ok ? 'met' : '**missed**';
}

function report(results: DialectResult[], seed: number): string {
  const lines = [
    '# Benchmark results',
    '',
    `Generated by \`npm run bench\` on ${new Date().toISOString().slice(0, 10)}: ${cpus().length} cores, ` +
      `${(totalmem() / 2 ** 30).toFixed(0)} GiB, Node ${process.version}; ${companies} companies × ${months} months ` +
      `(${(companies * months * 40).toLocaleString('en')} metric rows), autocannon with 20 connections for ${duration} s per row; ` +
      'each request picks a random company and page.',
    '',
    `Demo seed: ${seed.toFixed(1)} s (target < 15 s: ${verdict(seed < 15)}).`,
  ];
  for (const r of results) {
    const get = (name: string) => r.rows.find((m) => m.name === name)!;
    const metrics = get('REST metrics page');
    const baseMetrics = get('baseline metrics page');
    const companiesRow = get('REST companies list');
    const baseCompanies = get('baseline companies list');
    const mcp = get('MCP get_company_metrics');
    const p1 = r.scales[0]!.p50;
    const p100 = r.scales[r.scales.length - 1]!.p50;
    const peak = Math.max(...r.rows.filter((m) => !m.name.startsWith('baseline')).map((m) => m.rssMb));
    lines.push(
      '',
      `## ${r.dialect}`,
      '',
      '| Measurement | req/s | p50 ms | p99 ms | peak RSS MB | errors |',
      '|---|---:|---:|---:|---:|---:|',
      ...r.rows.map(
        (m) =>
          `| ${m.name} | ${m.rps.toFixed(0)} | ${m.p50} | ${m.p99} | ${m.rssMb.toFixed(0)} | ${m.errors} |`,
      ),
      '',
      '| Data set | REST metrics req/s | p50 ms |',
      '|---|---:|---:|',
      ...r.scales.map((s) => `| ${s.scale} | ${s.rps.toFixed(0)} | ${s.p50} |`),
      '',
      '| Target | Figure | Result |',
      '|---|---|---|',
      `| REST metrics ≥ 0.6 × baseline | ${ratio(metrics.rps, baseMetrics.rps)} × | ${verdict(metrics.rps >= 0.6 * baseMetrics.rps)} |`,
      `| REST companies ≥ 0.6 × baseline | ${ratio(companiesRow.rps, baseCompanies.rps)} × | ${verdict(companiesRow.rps >= 0.6 * baseCompanies.rps)} |`,
      `| MCP get_company_metrics ≥ 0.5 × REST metrics | ${ratio(mcp.rps, metrics.rps)} × | ${verdict(mcp.rps >= 0.5 * metrics.rps)} |`,
      `| p50 at 100 % ≤ 1.3 × p50 at 1 % | ${p100} ms vs ${p1} ms (${ratio(p100, p1)} ×) | ${verdict(p100 <= 1.3 * Math.max(p1, 1))} |`,
      `| peak RSS under load < 250 MB | ${peak.toFixed(0)} MB | ${verdict(peak < 250)} |`,
      `| start-up on an existing database < 2 s | ${(r.startMs / 1000).toFixed(2)} s | ${verdict(r.startMs < 2000)} |`,
    );
  }
  lines.push(
    '',
    'p50 latencies are whole milliseconds as autocannon reports them, so the 1.3 × ratio is read with ' +
      'at least 1 ms at 1 %. Peak RSS is sampled from /proc every 50 ms; compare with `/usr/bin/time -v`.',
    '',
  );
  return lines.join('\n');
}

const seed = await seedSeconds();
log(`demo seed: ${seed.toFixed(1)} s`);
const results: DialectResult[] = [await runDialect('SQLite')];
if (postgresUrl) results.push(await runDialect('PostgreSQL'));
writeFileSync(join(root, 'bench/RESULTS.md'), report(results, seed));
log('\nwrote bench/RESULTS.md');
