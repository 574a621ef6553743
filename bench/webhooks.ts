// `npm run bench:webhooks`: webhook delivery through the real server, with delivery on and a loopback
// receiver that verifies every signature (standardwebhooks) and notes when each delivery arrived.
//   (a) throughput: N single-point `POST /v1/metrics/` writes, a few in flight at once, as fast as the API
//       takes them; the writes per second, and the deliveries per second until every one has arrived;
//       and a backlog: the same writes while the endpoint is paused, the deliveries per second from
//       re-enabling it until the last has arrived;
//   (b) latency: single-point writes one every --gap-ms; from the write's response (its commit) to the
//       delivery's arrival, p50 and p99;
//   (c) the 10,000-point `POST /v1/metrics/` without an endpoint and with one, alternated, medians.
// Each database and poll interval gets a fresh database (a SQLite file; a PostgreSQL schema when
// --database-url, BENCH_DATABASE_URL or TEST_DATABASE_URL names one). The server runs in this process,
// as in bench/events.ts, so the receiver shares its event loop.
// Options: --writes (a, default 500), --spaced (b, default 200), --gap-ms (default 50), --runs (c,
// default 5), --polls (seconds, default "0.05,1"), --concurrency (a, default 4), --database-url.

import { once } from 'node:events';
import { createServer, type IncomingHttpHeaders } from 'node:http';
import type { AddressInfo } from 'node:net';
import { cpus, loadavg } from 'node:os';
import { setTimeout as sleep } from 'node:timers/promises';
import { parseArgs } from 'node:util';
import { Webhook } from 'standardwebhooks';
import { STANDARD_CATEGORIES } from '../core/categories.ts';
import { openDb } from '../db/knex.ts';
import { loadConfig } from '../server/config.ts';
import { startServer } from '../server/http.ts';
import { type Dialect, dialectsFor, postgresUrlOf, throwawayDatabase } from './databases.ts';
import { BENCH_TOKEN, generate } from './generate.ts';

const POINTS = 10_000;
const { values } = parseArgs({
  options: {
    writes: { type: 'string', default: '500' },
    spaced: { type: 'string', default: '200' },
    'gap-ms': { type: 'string', default: '50' },
    runs: { type: 'string', default: '5' },
    polls: { type: 'string', default: '0.05,1' },
    concurrency: { type: 'string', default: '4' },
    'database-url': { type: 'string' },
  },
});
const writes = Number(values.writes);
const spaced = Number(values.spaced);
const gapMs = Number(values['gap-ms']);
const runs = Number(values.runs);
const concurrency = Number(values.concurrency);
const polls = values.polls.split(',').map(Number);
const postgresUrl = postgresUrlOf(values['database-url']);

const flows = STANDARD_CATEGORIES.filter((c) => c.kind === 'currency' && !c.pointInTime).slice(0, 25);
const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;
/** The value at rank ceil(q·n) of the sorted values (nearest rank). */
const quantile = (xs: number[], q: number) =>
  [...xs].sort((a, b) => a - b)[Math.max(0, Math.ceil(q * xs.length) - 1)]!;
const companyId = (i: number) => `bc${String(i).padStart(6, '0')}`;
const monthEnd = (year: number, m: number) => new Date(Date.UTC(year, m + 1, 0)).toISOString().slice(0, 10);

interface Arrival {
  at: number;
  companyId: string | null;
  datumId: string | null;
}

/** A loopback receiver: verifies each delivery's signature, answers 204, keeps the first arrival of each event. */
async function receiver() {
  let hook: Webhook | undefined;
  const arrivals = new Map<string, Arrival>();
  let invalid = 0;
  let duplicates = 0;
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const at = performance.now();
      try {
        const payload = hook!.verify(
          Buffer.concat(chunks).toString('utf8'),
          req.headers as IncomingHttpHeaders as Record<string, string>,
        ) as { data: { id: string; company_id: string | null; data: { datum?: { id: string } } } };
        const id = payload.data.id;
        if (arrivals.has(id)) duplicates++;
        else
          arrivals.set(id, {
            at,
            companyId: payload.data.company_id,
            datumId: payload.data.data.datum?.id ?? null,
          });
      } catch {
        invalid++;
      }
      res.writeHead(204).end();
    });
  });
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/hooks`,
    arrivals,
    setSecret(secret: string) {
      hook = new Webhook(secret);
    },
    counts: () => ({ invalid, duplicates }),
    close() {
      server.closeAllConnections();
      return new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

/** Waits until `done` holds, checking every 5 ms; throws after `limitMs`. */
async function until(what: string, done: () => boolean, limitMs = 120_000): Promise<void> {
  const start = performance.now();
  while (!done()) {
    if (performance.now() - start > limitMs) throw new Error(`timed out waiting for ${what}`);
    await sleep(5);
  }
}

interface Result {
  dialect: string;
  poll: number;
  load: number;
  writesPerSecond: number;
  deliveriesPerSecond: number;
  drainMs: number;
  backlogPerSecond: number;
  p50: number;
  p99: number;
  max: number;
  without: number[];
  with: number[];
  invalid: number;
  duplicates: number;
}

async function measure(dialect: Dialect, poll: number): Promise<Result> {
  const load = loadavg()[0]!;
  const store = await throwawayDatabase(dialect, `webhooks_${String(poll).replace('.', '_')}`, postgresUrl);
  const rx = await receiver();
  // Companies 0..2·runs−1 take the 10,000-point writes (one each), the next one the single points.
  await generate(store.url, 2 * runs + 1, 1);
  const db = openDb(store.url);
  const server = await startServer(
    loadConfig({
      PORT: '0',
      HOST: '127.0.0.1',
      LOG_LEVEL: 'silent',
      DATABASE_URL: store.url,
      WEBHOOK_DELIVERY: 'on',
      WEBHOOK_ALLOW_PRIVATE_URLS: 'true',
      WEBHOOK_POLL_INTERVAL_SECONDS: String(poll),
      // The writes come from one token faster than the default 500 a minute allows.
      RATE_LIMIT_PER_MINUTE: '1000000',
    }),
    { db },
  );
  const call = async (method: string, path: string, body?: unknown) => {
    const res = await fetch(`${server.url}${path}`, {
      method,
      headers: { Authorization: `Bearer ${BENCH_TOKEN}`, 'Content-Type': 'application/json' },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    const text = await res.text();
    if (res.status >= 300) throw new Error(`${method} ${path} answered ${res.status}: ${text.slice(0, 300)}`);
    return text ? JSON.parse(text) : undefined;
  };
  const createEndpoint = async () => {
    const endpoint = await call('POST', '/v1/webhooks/', { url: rx.url, description: 'bench' });
    rx.setSecret(endpoint.secret);
    return endpoint.id as string;
  };

  try {
    // (c) 10,000 points without and with an endpoint, alternated; with one, its deliveries arrive before
    // the endpoint is deleted, so the next write without one does not share the machine with them.
    const without: number[] = [];
    const withEndpoint: number[] = [];
    const bulk = async (company: string) => {
      const items = [];
      for (let m = 0; items.length < POINTS; m++)
        for (const c of flows.slice(0, Math.min(flows.length, POINTS - items.length)))
          items.push({
            company_id: company,
            category: c.name,
            metric_cadence: 'month',
            date: monthEnd(1980, m),
            value: ((m * 7919) % 100_000).toFixed(2),
            currency: 'USD',
          });
      const started = performance.now();
      await call('POST', '/v1/metrics/', items);
      return { ms: performance.now() - started, events: new Set(items.map((i) => i.category)).size };
    };
    for (let r = 0; r < runs; r++) {
      without.push((await bulk(companyId(2 * r))).ms);
      const id = await createEndpoint();
      const company = companyId(2 * r + 1);
      const { ms, events } = await bulk(company);
      withEndpoint.push(ms);
      await until(`${events} deliveries of ${company}`, () => {
        let n = 0;
        for (const a of rx.arrivals.values()) if (a.companyId === company) n++;
        return n === events;
      });
      await call('DELETE', `/v1/webhooks/${id}/`);
    }

    const endpoint = await createEndpoint();
    const single = companyId(2 * runs);
    let month = 0;
    /** One new point; its id (the event's datum) and when its response arrived. */
    const point = async () => {
      const m = month++;
      const [created] = await call('POST', '/v1/metrics/', [
        {
          company_id: single,
          category: flows[m % flows.length]!.name,
          metric_cadence: 'month',
          date: monthEnd(1900, Math.floor(m / flows.length)),
          value: String(m),
          currency: 'USD',
        },
      ]);
      return { id: created.id as string, committed: performance.now() };
    };
    const arrivalOf = new Map<string, number>();
    const arrived = (ids: string[]) => {
      if (arrivalOf.size === 0 || ids.some((id) => !arrivalOf.has(id)))
        for (const a of rx.arrivals.values()) if (a.datumId) arrivalOf.set(a.datumId, a.at);
      return ids.every((id) => arrivalOf.has(id));
    };

    /** `writes` single-point writes, `concurrency` in flight. */
    const burst = async () => {
      const done: { id: string; committed: number }[] = [];
      let issued = 0;
      await Promise.all(
        Array.from({ length: concurrency }, async () => {
          while (issued < writes) {
            issued++;
            done.push(await point());
          }
        }),
      );
      return done;
    };

    // (a) throughput
    const started = performance.now();
    const done = await burst();
    const lastCommit = Math.max(...done.map((d) => d.committed));
    const ids = done.map((d) => d.id);
    await until(`${writes} deliveries`, () => arrived(ids));
    const lastArrival = Math.max(...ids.map((id) => arrivalOf.get(id)!));

    // (a) a backlog: the same writes while the endpoint is paused, then sent once it is enabled again.
    await call('PATCH', `/v1/webhooks/${endpoint}/`, { enabled: false });
    const backlog = (await burst()).map((d) => d.id);
    const enabled = performance.now();
    await call('PATCH', `/v1/webhooks/${endpoint}/`, { enabled: true });
    await until(`${writes} deliveries of the backlog`, () => arrived(backlog));
    const backlogMs = Math.max(...backlog.map((id) => arrivalOf.get(id)!)) - enabled;

    // (b) latency, writes one every gap
    const latencies: number[] = [];
    const spacedWrites: { id: string; committed: number }[] = [];
    const t0 = performance.now();
    for (let i = 0; i < spaced; i++) {
      const wait = t0 + i * gapMs - performance.now();
      if (wait > 0) await sleep(wait);
      spacedWrites.push(await point());
    }
    await until(`${spaced} spaced deliveries`, () => arrived(spacedWrites.map((w) => w.id)));
    for (const w of spacedWrites) latencies.push(arrivalOf.get(w.id)! - w.committed);

    return {
      dialect,
      poll,
      load,
      writesPerSecond: writes / ((lastCommit - started) / 1000),
      deliveriesPerSecond: writes / ((lastArrival - started) / 1000),
      drainMs: lastArrival - lastCommit,
      backlogPerSecond: writes / (backlogMs / 1000),
      p50: quantile(latencies, 0.5),
      p99: quantile(latencies, 0.99),
      max: Math.max(...latencies),
      without,
      with: withEndpoint,
      ...rx.counts(),
    };
  } finally {
    await server.close();
    await db.destroy();
    await rx.close();
    await store.drop();
  }
}

const results: Result[] = [];
for (const dialect of dialectsFor(postgresUrl))
  for (const poll of polls) {
    const r = await measure(dialect, poll);
    results.push(r);
    console.error(`${dialect}, poll ${poll} s: done`);
  }

const f = (x: number) => x.toFixed(0);
console.log(
  [
    `Node ${process.version}, ${cpus().length} cores; (a) ${writes} single-point writes, ${concurrency} in flight; ` +
      `(b) ${spaced} writes one every ${gapMs} ms; (c) ${runs} runs each of ${POINTS} points`,
    '',
    '| Database | poll s | load | writes/s | deliveries/s | last commit → last arrival ms | backlog deliveries/s | latency p50 / p99 / max ms | 10,000 points without / with endpoint ms | bad signatures | duplicates |',
    '|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|',
    ...results.map(
      (r) =>
        `| ${r.dialect} | ${r.poll} | ${r.load.toFixed(1)} | ${f(r.writesPerSecond)} | ${f(r.deliveriesPerSecond)} | ${f(r.drainMs)} | ${f(r.backlogPerSecond)} | ` +
        `${f(r.p50)} / ${f(r.p99)} / ${f(r.max)} | ${f(median(r.without))} / ${f(median(r.with))} | ${r.invalid} | ${r.duplicates} |`,
    ),
    '',
    ...results.map(
      (r) =>
        `${r.dialect}, poll ${r.poll} s — 10,000 points without: ${r.without.map(f).join(', ')}; with: ${r.with.map(f).join(', ')} ms`,
    ),
  ].join('\n'),
);
