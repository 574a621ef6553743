// `npm run bench:founder`: the founder page over real HTTP. Per database (SQLite; PostgreSQL too when
// --database-url, BENCH_DATABASE_URL or TEST_DATABASE_URL names one), a fresh database with the firm of
// bench/generate.ts (--companies companies, one month of data), one contact each, and one request asking
// each company for 50 figures, sent through the information services; then the real server on a free port:
//   (a) the page's first answer: GET /respond/<token> of a fresh link (the link checked, the report's
//       view read, the form rendered), one request at a time, --gets of them;
//   (b) a 50-figure submission: POST of the form with every figure (multipart, CSRF checked), each to
//       another company's report, one at a time: 50 metric data written with their change log and events.
// Options: --companies (default 40), --gets (default 200), --database-url.

import { cpus, loadavg } from 'node:os';
import { parseArgs } from 'node:util';
import type { Knex } from 'knex';
import { principalForEmail } from '../auth/local-principal.ts';
import { STANDARD_CATEGORIES } from '../core/categories.ts';
import { openDb } from '../db/knex.ts';
import { createRepos } from '../db/repos/index.ts';
import { loadConfig } from '../server/config.ts';
import { startServer } from '../server/http.ts';
import { mintLinks } from '../services/founder-links.ts';
import { createRequest } from '../services/information-requests.ts';
import { sendRequest } from '../services/information-sending.ts';
import { type Dialect, dialectsFor, postgresUrlOf, throwawayDatabase } from './databases.ts';
import { generate } from './generate.ts';

const { values } = parseArgs({
  options: {
    companies: { type: 'string', default: '40' },
    gets: { type: 'string', default: '200' },
    'database-url': { type: 'string' },
  },
});
const companies = Number(values.companies);
const gets = Number(values.gets);
const postgresUrl = postgresUrlOf(values['database-url']);
const PUBLIC_URL = 'http://127.0.0.1:8000';

// 50 of the standard categories, each at the time period that fits it.
const FIFTY = STANDARD_CATEGORIES.filter((c) => c.kind !== 'text' && c.kind !== 'select').slice(0, 50);
const valueFor = (kind: string) =>
  kind === 'percentage' ? '0.25' : kind === 'multiple' ? '2.5' : '12345.67';

/** One contact per company; the request to all of them; a fresh link per report with its token. */
interface Link {
  reportId: string;
  token: string;
  /** The form's figures: each metric item's field and a value of its kind. */
  fields: [string, string][];
}

async function prepare(db: Knex): Promise<Link[]> {
  const repos = createRepos(db);
  const ids = (await db('companies').where('firm_id', 'bench-firm').orderBy('id').pluck('id')) as string[];
  const at = '2026-01-01T00:00:00.000Z';
  const contacts = ids.map((id, i) => ({
    id: `bct${i}`,
    firm_id: 'bench-firm',
    company_id: id,
    name: `Founder ${i}`,
    email: `founder${i}@company-${i}.example`,
    created_by: 'bench-user',
    created_at: at,
    updated_at: at,
  }));
  for (let i = 0; i < contacts.length; i += 200)
    await db('company_contacts').insert(contacts.slice(i, i + 200));
  const clock = { now: () => new Date('2026-01-05T12:00:00.000Z') };
  const principal = await principalForEmail(repos, 'bench@example.com');
  const ctx = { repos, clock, principal, publicUrl: PUBLIC_URL, founderLinkDaysAfterDue: 30 };
  const id = await createRequest(ctx, {
    name: 'Q4 2025 update',
    period: '2025-Q4',
    period_start_date: '2025-10-01',
    period_end_date: '2025-12-31',
    due_date: '2099-01-31',
    company_ids: ids,
    metrics: FIFTY.map((c) => ({
      category: c.name,
      time_period: c.pointInTime ? 'point_in_time' : 'quarter',
    })),
    documents: [],
  });
  await sendRequest(ctx, id);
  const reports = await repos.informationWrites.reportsOf(id);
  const kinds = new Map(FIFTY.map((c) => [c.name, c.kind]));
  const links: Link[] = [];
  for (const [i, r] of reports.entries()) {
    const [link] = await mintLinks(repos, { id: r.id, firm_id: 'bench-firm' }, [contacts[i]!] as never, {
      at,
      expiresAt: '2099-12-31T00:00:00.000Z',
      publicUrl: PUBLIC_URL,
    });
    const items = await repos.informationWrites.reportMetrics(r.id);
    const fields = items.map((m): [string, string] => [
      `metric.${m.id}.value`,
      valueFor(kinds.get(m.name) ?? 'number'),
    ]);
    links.push({ reportId: r.id, token: link!.token, fields });
  }
  return links;
}

const pct = (xs: number[], p: number) => {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.min(s.length - 1, Math.ceil((p / 100) * s.length) - 1)]!;
};

async function page(base: string, token: string) {
  const started = performance.now();
  const res = await fetch(`${base}/respond/${token}`);
  const text = await res.text();
  if (res.status !== 200) throw new Error(`GET answered ${res.status}`);
  return {
    ms: performance.now() - started,
    text,
    cookie: res.headers.getSetCookie()[0]!.split(';')[0]!,
  };
}

async function submit(base: string, link: Link) {
  const { text, cookie } = await page(base, link.token);
  const form = new FormData();
  form.append('csrf_token', /name="csrf_token" value="([^"]+)"/.exec(text)![1]!);
  form.append('report_id', link.reportId);
  for (const [name, value] of link.fields) form.append(name, value);
  form.append('action', 'submit');
  const started = performance.now();
  const res = await fetch(`${base}/respond/${link.token}`, {
    method: 'POST',
    body: form,
    headers: { cookie },
  });
  const body = await res.text();
  if (res.status !== 200) throw new Error(`POST answered ${res.status}: ${body.slice(0, 2000)}`);
  return performance.now() - started;
}

async function measure(dialect: Dialect) {
  const load = loadavg()[0]!;
  const store = await throwawayDatabase(dialect, 'founder', postgresUrl);
  await generate(store.url, companies, 1);
  const db = openDb(store.url);
  const links = await prepare(db);
  const config = loadConfig({
    PORT: '0',
    HOST: '127.0.0.1',
    LOG_LEVEL: 'silent',
    DATABASE_URL: store.url,
    PUBLIC_URL,
    FOUNDER_PAGE_PER_MINUTE: '10000',
    DOCUMENT_PARSING: 'off',
    ALERTS: 'off',
    WEBHOOK_DELIVERY: 'off',
    MAIL_DELIVERY: 'off',
    REMINDERS: 'off',
  });
  const server = await startServer(config, { db });
  try {
    for (const l of links.slice(0, 5)) await page(server.url, l.token); // warm-up
    const getMs: number[] = [];
    for (let i = 0; i < gets; i++) getMs.push((await page(server.url, links[i % links.length]!.token)).ms);
    const postMs: number[] = [];
    for (const l of links) postMs.push(await submit(server.url, l));
    const figures = Number(
      (await db('metric_data')
        .where('detailed_source', 'like', 'information report %')
        .count({ n: '*' })
        .first())!.n,
    );
    return { dialect, load, getMs, postMs, figures };
  } finally {
    await server.close();
    await db.destroy().catch(() => undefined);
    await store.drop();
  }
}

const ms = (x: number) => `${x.toFixed(1)} ms`;
console.log(
  `founder page bench: ${companies} reports of ${FIFTY.length} figures, ${cpus().length} cores, Node ${process.version}`,
);
console.log('| Database | load | GET p50 | GET p99 | 50-figure submit p50 | p99 | figures written |');
console.log('|---|---:|---:|---:|---:|---:|---:|');
for (const dialect of dialectsFor(postgresUrl)) {
  const r = await measure(dialect);
  console.log(
    `| ${r.dialect} | ${r.load.toFixed(1)} | ${ms(pct(r.getMs, 50))} | ${ms(pct(r.getMs, 99))} | ${ms(pct(r.postMs, 50))} | ${ms(pct(r.postMs, 99))} | ${r.figures.toLocaleString('en')} |`,
  );
}
