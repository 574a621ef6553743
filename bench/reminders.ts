// `npm run bench:reminders`: one reminder pass over 1,000 companies, and the mail it makes sent through a
// local SMTP server. Per database (SQLite; PostgreSQL too when --database-url, BENCH_DATABASE_URL or
// TEST_DATABASE_URL names one), a fresh database with a firm of --companies companies (bench/generate.ts),
// one contact each, and one request asking them all, sent through the information services:
//   (a) sending the request: one transaction that opens the reports, mints the links, queues the mail;
//   (b) the reminder pass on the day of the first step: a link and a reminder per contact, the reports
//       marked reminded with their events; then a second pass on the same day (nothing left to do);
//   (c) on PostgreSQL, the next step's pass run by two nodes at the same moment (each reminder once);
//   (d) sending the reminders: the mail worker (batches of 16, a pool of 3 connections) to an
//       smtp-server on loopback that counts what it receives, from the first claim to the last message.
// Options: --companies (default 1000), --database-url.

import { cpus, loadavg } from 'node:os';
import { parseArgs } from 'node:util';
import type { Knex } from 'knex';
import { SMTPServer } from 'smtp-server';
import { principalForEmail } from '../auth/local-principal.ts';
import type { Logger } from '../core/logger.ts';
import { openDb } from '../db/knex.ts';
import { createRepos, type Repos } from '../db/repos/index.ts';
import { smtpSender } from '../mail/transport.ts';
import { createMailWorker } from '../mail/worker.ts';
import { informationReminders } from '../services/information-reminders.ts';
import { createRequest } from '../services/information-requests.ts';
import { sendRequest } from '../services/information-sending.ts';
import { createReminderPass } from '../services/reminders.ts';
import { type Dialect, dialectsFor, postgresUrlOf, throwawayDatabase } from './databases.ts';
import { generate } from './generate.ts';

const { values } = parseArgs({
  options: { companies: { type: 'string', default: '1000' }, 'database-url': { type: 'string' } },
});
const companies = Number(values.companies);
const postgresUrl = postgresUrlOf(values['database-url']);
const quiet: Logger = { debug() {}, info() {}, warn() {}, error() {}, child: () => quiet };
const SETTINGS = { publicUrl: 'http://127.0.0.1:8000', founderLinkDaysAfterDue: 30 };

/** An SMTP server on loopback that takes every message and counts it. */
async function receiver() {
  let received = 0;
  const server = new SMTPServer({
    disabledCommands: ['STARTTLS', 'AUTH'],
    logger: false,
    onData(stream, _session, callback) {
      stream.on('data', () => {});
      stream.on('end', () => {
        received++;
        callback();
      });
    },
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.server.address() as { port: number };
  return {
    url: `smtp://127.0.0.1:${port}`,
    received: () => received,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

/** One contact per company, as an import would add them. */
async function addContacts(db: Knex): Promise<void> {
  const ids = (await db('companies').where('firm_id', 'bench-firm').orderBy('id').pluck('id')) as string[];
  const rows = ids.map((id, i) => ({
    id: `bct${i}`,
    firm_id: 'bench-firm',
    company_id: id,
    name: `Founder ${i}`,
    email: `founder${i}@company-${i}.example`,
    created_by: 'bench-user',
    created_at: '2026-01-01T00:00:00.000Z',
    updated_at: '2026-01-01T00:00:00.000Z',
  }));
  for (let i = 0; i < rows.length; i += 200) await db('company_contacts').insert(rows.slice(i, i + 200));
}

async function timed<T>(fn: () => Promise<T>): Promise<{ ms: number; value: T }> {
  const started = performance.now();
  const value = await fn();
  return { ms: performance.now() - started, value };
}

const count = async (db: Knex, kind: string) =>
  Number((await db('outbound_mail').where({ kind }).count({ n: '*' }).first())!.n);

interface Result {
  dialect: string;
  load: number;
  sendMs: number;
  requestMails: number;
  passMs: number;
  reminders: number;
  againMs: number;
  twoNodesMs: number | null;
  twoNodesReminders: number | null;
  deliverMs: number;
  delivered: number;
}

/** A clock the bench moves to each step's day. */
function benchClock(start: string) {
  let current = new Date(start);
  return { now: () => new Date(current), set: (iso: string) => (current = new Date(iso)) };
}

/** The pass over `repos` as a node runs it. */
const passOver = (repos: Repos, clock: { now(): Date }) =>
  createReminderPass({
    repos,
    clock,
    logger: quiet,
    intervalMs: 60_000,
    remindFirm: informationReminders(() => SETTINGS),
  });

/** (c): the next step's pass by two nodes at once; the time until both ended and the reminders queued. */
async function twoNodes(url: string, repos: Repos, clock: { now(): Date }) {
  const second = openDb(url);
  try {
    const before = await count(repos.db, 'reminder');
    const { ms } = await timed(() =>
      Promise.all([passOver(repos, clock).runOnce(), passOver(createRepos(second), clock).runOnce()]),
    );
    return { ms, reminders: (await count(repos.db, 'reminder')) - before };
  } finally {
    await second.destroy();
  }
}

/** (d): every pending message through the mail worker to a loopback SMTP server. */
async function deliver(repos: Repos, clock: { now(): Date }) {
  const rx = await receiver();
  const sender = smtpSender({
    url: rx.url,
    from: { name: 'Bench', address: 'bench@example.com' },
    timeoutMs: 30_000,
  });
  const worker = createMailWorker({
    repo: repos.mail,
    clock,
    logger: quiet,
    sender,
    pollMs: 50,
    leaseMs: 300_000,
    retryBaseSeconds: 30,
    maxAttempts: 8,
  });
  try {
    const { ms } = await timed(async () => {
      while ((await worker.runOnce()) > 0) {
        // the next batch at once
      }
    });
    return { ms, delivered: rx.received() };
  } finally {
    await worker.stop();
    await rx.close();
  }
}

async function measure(dialect: Dialect): Promise<Result> {
  const load = loadavg()[0]!;
  const store = await throwawayDatabase(dialect, 'reminders', postgresUrl);
  await generate(store.url, companies, 1);
  const db = openDb(store.url);
  const repos = createRepos(db);
  try {
    await addContacts(db);
    const clock = benchClock('2026-01-05T12:00:00.000Z');
    const principal = await principalForEmail(repos, 'bench@example.com');
    const ctx = { repos, clock, principal, publicUrl: SETTINGS.publicUrl, founderLinkDaysAfterDue: 30 };
    const ids = (await db('companies').where('firm_id', 'bench-firm').pluck('id')) as string[];
    const id = await createRequest(ctx, {
      name: 'Q4 2025 update',
      period: '2025-Q4',
      period_start_date: '2025-10-01',
      period_end_date: '2025-12-31',
      due_date: '2026-01-31',
      company_ids: ids,
      metrics: [{ category: 'revenue' }, { category: 'cash_in_bank', optional: true }],
      documents: [{ name: 'Board deck' }],
      reminder_days: [-7, 0, 7],
    });
    const send = await timed(() => sendRequest(ctx, id));
    const requestMails = await count(db, 'request');
    // Only the reminders are sent in (d).
    await db('outbound_mail').where({ kind: 'request' }).update({ status: 'sent' });
    clock.set('2026-01-24T09:00:00.000Z');
    const first = await timed(() => passOver(repos, clock).runOnce());
    const again = await timed(() => passOver(repos, clock).runOnce());
    clock.set('2026-01-31T09:00:00.000Z');
    const both = dialect === 'PostgreSQL' ? await twoNodes(store.url, repos, clock) : null;
    const sent = await deliver(repos, clock);
    return {
      dialect,
      load,
      sendMs: send.ms,
      requestMails,
      passMs: first.ms,
      reminders: first.value.reminders,
      againMs: again.ms,
      twoNodesMs: both?.ms ?? null,
      twoNodesReminders: both?.reminders ?? null,
      deliverMs: sent.ms,
      delivered: sent.delivered,
    };
  } finally {
    await db.destroy();
    await store.drop();
  }
}

function report(r: Result): string[] {
  const s = (ms: number) => `${(ms / 1000).toFixed(2)} s`;
  const lines = [
    `${r.dialect} (load ${r.load.toFixed(2)}, ${cpus().length} cores), ${companies} companies with one contact each`,
    `  (a) sending the request:      ${s(r.sendMs)}, ${r.requestMails} request mails queued`,
    `  (b) the reminder pass:        ${s(r.passMs)}, ${r.reminders} reminders queued (${(r.reminders / (r.passMs / 1000)).toFixed(0)}/s)`,
    `      the same pass again:      ${s(r.againMs)}, nothing queued`,
  ];
  if (r.twoNodesMs !== null)
    lines.push(`  (c) two nodes at once:        ${s(r.twoNodesMs)}, ${r.twoNodesReminders} reminders queued`);
  lines.push(
    `  (d) sending the reminders:    ${s(r.deliverMs)}, ${r.delivered} delivered (${(r.delivered / (r.deliverMs / 1000)).toFixed(0)}/s)`,
  );
  return lines;
}

for (const dialect of dialectsFor(postgresUrl)) console.log(report(await measure(dialect)).join('\n'));
