// `npx tsx bench/events.ts`: the cost of change events on the two largest writes — one POST /v1/metrics/
// of 10,000 points through the real server, and a `portfolio import` of 144,000 metric rows — each
// on a fresh SQLite file (or --database-url), several runs, medians.
//
// To compare with the service before events, run it over a checkout of that commit:
//   git archive <commit> | tar -x -C /tmp/before && ln -s $PWD/node_modules /tmp/before/
//   npx tsx bench/events.ts --root /tmp/before
// The script loads the server, the generator and the importer from --root (default: this checkout),
// so both runs measure the same requests against their own code.
// Options: --root, --database-url, --runs (default 5; the import runs 3 times).

import { existsSync, rmSync } from 'node:fs';
import { cpus, loadavg, tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { parseArgs } from 'node:util';

const POINTS = 10_000;
const IMPORT_COMPANIES = 12;
const IMPORT_ROWS = 144_000;
const file = join(tmpdir(), `bench-events-${process.pid}.db`);
const { values } = parseArgs({
  options: {
    root: { type: 'string', default: resolve(dirname(fileURLToPath(import.meta.url)), '..') },
    'database-url': { type: 'string', default: `sqlite:${file}` },
    runs: { type: 'string', default: '5' },
  },
});
const root = resolve(values.root);
const url = values['database-url'];
const runs = Number(values.runs);
const load = async <T>(path: string): Promise<T> =>
  import(pathToFileURL(join(root, path)).href) as Promise<T>;

const { BENCH_TOKEN, generate } = (await load('bench/generate.ts')) as {
  BENCH_TOKEN: string;
  generate(url: string, companies: number, months: number): Promise<number>;
};
const { STANDARD_CATEGORIES } = (await load('core/categories.ts')) as {
  STANDARD_CATEGORIES: { name: string; kind: string; pointInTime: boolean }[];
};
const { openDb } = (await load('db/knex.ts')) as { openDb(url: string): import('knex').Knex };
const { loadConfig } = (await load('server/config.ts')) as {
  loadConfig(env: Record<string, string>): unknown;
};
const { startServer } = (await load('server/http.ts')) as {
  startServer(config: unknown, options: { db: unknown }): Promise<{ url: string; close(): Promise<void> }>;
};
// The importer moved from db/ to services/ with the events.
const importer = existsSync(join(root, 'services/import.ts')) ? 'services/import.ts' : 'db/import.ts';
const { importData } = (await load(importer)) as {
  importData(db: unknown, firm: unknown, data: unknown, options: { now: string }): Promise<unknown>;
};

await generate(url, runs + IMPORT_COMPANIES, 12);
const db = openDb(url);
const server = await startServer(
  loadConfig({ PORT: '0', HOST: '127.0.0.1', LOG_LEVEL: 'silent', DATABASE_URL: url }),
  { db },
);
const flows = STANDARD_CATEGORIES.filter((c) => c.kind === 'currency' && !c.pointInTime).slice(0, 25);
const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;
const companyId = (i: number) => `bc${String(i).padStart(6, '0')}`;
const monthEnd = (year: number, m: number) => new Date(Date.UTC(year, m + 1, 0)).toISOString().slice(0, 10);

/** 10,000 monthly points of one company, decades before its generated data. */
function points(company: string) {
  const items = [];
  for (let m = 0; items.length < POINTS; m++) {
    for (const c of flows.slice(0, Math.min(flows.length, POINTS - items.length))) {
      const value = ((m * 7919) % 100_000).toFixed(2);
      items.push({
        company_id: company,
        category: c.name,
        metric_cadence: 'month',
        date: monthEnd(1980, m),
        value,
        currency: 'USD',
      });
    }
  }
  return items;
}

async function timedPost(company: string): Promise<number> {
  const body = JSON.stringify(points(company));
  const started = performance.now();
  const res = await fetch(`${server.url}/v1/metrics/`, {
    method: 'POST',
    headers: { Authorization: `Bearer ${BENCH_TOKEN}`, 'Content-Type': 'application/json' },
    body,
  });
  const text = await res.text();
  if (res.status !== 201) throw new Error(`POST /v1/metrics/ answered ${res.status}: ${text.slice(0, 300)}`);
  return performance.now() - started;
}

/** 144,000 new metric rows over 12 companies and the flow categories, in a 50-year block of its own per run. */
async function timedImport(run: number): Promise<number> {
  const firm = await db('firms').where({ slug: 'bench' }).first();
  const slugs = (
    await db('companies').where({ firm_id: firm.id }).orderBy('id').limit(IMPORT_COMPANIES).select('slug')
  ).map((c: { slug: string }) => c.slug);
  const metrics = [];
  let order = 0;
  for (const slug of slugs) {
    for (const c of flows) {
      for (let m = 0; m < Math.ceil(IMPORT_ROWS / IMPORT_COMPANIES / flows.length); m++) {
        const date = monthEnd(1800 + 50 * run, m);
        const value = ((m * 31 + order) % 100_000).toFixed(2);
        metrics.push({
          where: `line ${order}`,
          order: order++,
          company_slug: slug,
          category: c.name,
          date,
          cadence: 'month',
          value,
          currency: 'USD',
        });
      }
    }
  }
  const data = {
    companies: [],
    budgets: [],
    metrics: metrics.slice(0, IMPORT_ROWS),
    notes: [],
    financings: [],
  };
  const started = performance.now();
  await importData(db, firm, data, { now: new Date().toISOString() });
  return performance.now() - started;
}

try {
  const startLoad = loadavg()[0]!;
  const posts: number[] = [];
  for (let r = 0; r < runs; r++) posts.push(await timedPost(companyId(r)));
  const imports: number[] = [];
  for (let r = 0; r < 3; r++) imports.push(await timedImport(r));
  const events = await db('events')
    .count({ n: '*' })
    .first()
    .catch(() => undefined);
  const row = (label: string, xs: number[]) =>
    `| ${label} | ${median(xs).toFixed(0)} | ${Math.min(...xs).toFixed(0)} | ${Math.max(...xs).toFixed(0)} |`;
  console.log(
    [
      `${root} (${importer}): ${url.split(':')[0]}, Node ${process.version}, ${cpus().length} cores, ` +
        `1-minute load average ${startLoad.toFixed(1)} at the start; events written: ${events ? Number(events.n) : 'no events table'}`,
      '| Write | median ms | min ms | max ms |',
      '|---|---:|---:|---:|',
      row(`POST /v1/metrics/, ${POINTS} new points (${runs} runs)`, posts),
      row(`import of ${IMPORT_ROWS} new metric rows (3 runs)`, imports),
    ].join('\n'),
  );
} finally {
  await server.close();
  await db.destroy();
  if (url === `sqlite:${file}`)
    for (const f of [file, `${file}-wal`, `${file}-shm`]) rmSync(f, { force: true });
}
