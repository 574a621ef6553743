// `npm run bench:writes`: posts 10,000 metric data points in one POST /v1/metrics/ through the real
// server on a fresh SQLite file, several times (each run a company without data), and prints the
// median; then the same for overwriting all 10,000 points of one company.
// Options: --database-url (default: a new file in the temp directory), --runs (default 5).

import { rmSync } from 'node:fs';
import { cpus, loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { STANDARD_CATEGORIES } from '../core/categories.ts';
import { openDb } from '../db/knex.ts';
import { loadConfig } from '../server/config.ts';
import { startServer } from '../server/http.ts';
import { BENCH_TOKEN, generate } from './generate.ts';

const POINTS = 10_000;
const file = join(tmpdir(), `bench-writes-${process.pid}.db`);
const { values } = parseArgs({
  options: {
    'database-url': { type: 'string', default: `sqlite:${file}` },
    runs: { type: 'string', default: '5' },
  },
});
const url = values['database-url'];
const runs = Number(values.runs);

// One company per run plus one for the overwrites; the generated companies have 12 months of data.
await generate(url, runs + 1, 12);
const db = openDb(url);
const server = await startServer(
  loadConfig({ PORT: '0', HOST: '127.0.0.1', LOG_LEVEL: 'silent', DATABASE_URL: url }),
  { db },
);

const flows = STANDARD_CATEGORIES.filter((c) => c.kind === 'currency' && !c.pointInTime).slice(0, 25);
const months = Math.ceil(POINTS / flows.length);

/** 10,000 monthly points of one company, reaching back decades before its generated data. */
function points(companyId: string, salt: number) {
  const items = [];
  for (let m = 0; m < months; m++) {
    const date = new Date(Date.UTC(1980, m + 1, 0)).toISOString().slice(0, 10);
    for (const c of flows) {
      if (items.length === POINTS) break;
      items.push({
        company_id: companyId,
        category: c.name,
        metric_cadence: 'month',
        date,
        value: (((m * 7919 + salt) % 100_000) + 0.25).toFixed(2),
        currency: 'USD',
      });
    }
  }
  return items;
}

interface Timing {
  wall: number;
  /** CPU time of this process (server and client) during the request: less sensitive to other load. */
  cpu: number;
}

async function timedPost(body: unknown): Promise<Timing> {
  const json = JSON.stringify(body);
  const cpuBefore = process.cpuUsage();
  const started = performance.now();
  const res = await fetch(`${server.url}/v1/metrics/`, {
    method: 'POST',
    headers: { Authorization: `Bearer ${BENCH_TOKEN}`, 'Content-Type': 'application/json' },
    body: json,
  });
  const text = await res.text();
  const wall = performance.now() - started;
  const cpu = process.cpuUsage(cpuBefore);
  if (res.status !== 201) throw new Error(`POST /v1/metrics/ answered ${res.status}: ${text.slice(0, 500)}`);
  return { wall, cpu: (cpu.user + cpu.system) / 1000 };
}

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;
const companyId = (i: number) => `bc${String(i).padStart(6, '0')}`;

try {
  const load = loadavg()[0]!;
  const created: Timing[] = [];
  for (let r = 0; r < runs; r++) created.push(await timedPost(points(companyId(r), r)));
  const target = companyId(runs);
  await timedPost(points(target, 0));
  const overwritten: Timing[] = [];
  for (let r = 1; r <= runs; r++) overwritten.push(await timedPost(points(target, r)));
  const row = (label: string, ts: Timing[]) => {
    const xs = ts.map((t) => t.wall);
    return `| ${label} | ${median(xs).toFixed(0)} | ${Math.min(...xs).toFixed(0)} | ${Math.max(...xs).toFixed(0)} | ${median(ts.map((t) => t.cpu)).toFixed(0)} |`;
  };
  console.log(
    [
      `POST /v1/metrics/ with ${POINTS} points, ${runs} runs each (${url.split(':')[0]}, Node ${process.version}, ` +
        `${cpus().length} cores, 1-minute load average ${load.toFixed(1)} at the start)`,
      '| Request | median ms | min ms | max ms | median CPU ms |',
      '|---|---:|---:|---:|---:|',
      row('create 10,000 new points', created),
      row('overwrite 10,000 existing points', overwritten),
    ].join('\n'),
  );
} finally {
  await server.close();
  await db.destroy();
  if (url === `sqlite:${file}`)
    for (const f of [file, `${file}-wal`, `${file}-shm`]) rmSync(f, { force: true });
}
