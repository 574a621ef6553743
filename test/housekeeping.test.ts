import { spawn } from 'node:child_process';
import { setTimeout as sleep } from 'node:timers/promises';
import { fileURLToPath } from 'node:url';
import Database from 'better-sqlite3';
import { expect } from 'chai';
import type { Knex } from 'knex';
import type { Logger } from '../core/logger.ts';
import { pruneExpired } from '../db/prune.ts';
import { loadConfig } from '../server/config.ts';
import { type RunningServer, startServer } from '../server/http.ts';
import { insertDatum } from './helpers/datums.ts';
import { dialects, sqliteTestDb, type TestDb } from './helpers/db.ts';
import { buildFixture, type Fixture } from './helpers/fixture.ts';
import { api, startTestServer } from './helpers/server.ts';

const BIN = fileURLToPath(new URL('../cli/portfolio.mjs', import.meta.url));
const HOUR = 60 * 60 * 1000;

let serial = 0;

/** Rows of every pruned kind, some already expired and some still in use, told apart by their keys. */
async function seedRows(db: Knex, fx: Fixture) {
  const n = ++serial;
  const now = Date.now();
  const at = (ms: number) => new Date(now + ms).toISOString();
  const user_id = fx.editor.user.id;
  const firm_id = fx.firmA.id;
  const hex = (tag: string) => `${tag}-${n}`.padEnd(64, '0');
  const client = (id: string, created: number) => ({
    client_id: `${id}-${n}`,
    metadata: '{}',
    is_metadata_document: false,
    created_at: at(created),
  });
  await db('mcp_clients').insert([
    client('abandoned', -25 * HOUR),
    client('signed-in', -25 * HOUR),
    client('new', -HOUR),
  ]);
  const grant = (id: string, expires: number, revoked: number | null) => ({
    id: `${id}${n}`.slice(0, 32),
    client_id: `signed-in-${n}`,
    user_id,
    firm_id,
    resource: 'http://127.0.0.1/mcp',
    scope: 'read',
    created_at: at(-40 * 24 * HOUR),
    expires_at: at(expires),
    revoked_at: revoked === null ? null : at(revoked),
  });
  await db('mcp_grants').insert([
    grant('gexpired', -HOUR, null),
    grant('grevokedlong', 24 * HOUR, -48 * HOUR),
    grant('grevokednow', 24 * HOUR, -HOUR),
    grant('glive', 24 * HOUR, null),
  ]);
  await db('refresh_tokens').insert(
    ['gexpired', 'grevokedlong', 'grevokednow', 'glive'].map((g) => ({
      token_hash: hex(`rt-${g}`),
      grant_id: `${g}${n}`.slice(0, 32),
      created_at: at(-HOUR),
    })),
  );
  const token = (id: string, expires: number, grantId: string | null) => ({
    id: `${id}${n}`.slice(0, 32),
    token_hash: hex(`at-${id}`),
    kind: 'mcp',
    audience: 'mcp',
    firm_id,
    user_id,
    grant_id: grantId,
    scope: 'read',
    created_at: at(-2 * HOUR),
    expires_at: at(expires),
  });
  await db('access_tokens').insert([
    token('texpired', -HOUR, null),
    token('tlive', HOUR, null),
    token('tofexpiredgrant', HOUR, `gexpired${n}`.slice(0, 32)),
    token('tofrevokednow', HOUR, `grevokednow${n}`.slice(0, 32)),
  ]);
  const code = (id: string, expires: number) => ({
    code_hash: hex(`code-${id}`),
    client_id: `signed-in-${n}`,
    user_id,
    redirect_uri: 'http://127.0.0.1/callback',
    code_challenge: 'x'.repeat(43),
    resource: 'http://127.0.0.1/mcp',
    scope: 'read',
    expires_at: at(expires),
  });
  await db('authorization_codes').insert([code('expired', -60_000), code('live', 60_000)]);
  const session = (id: string, expires: number) => ({
    id_hash: hex(`session-${id}`),
    user_id,
    csrf_token: 'c'.repeat(64),
    created_at: at(-HOUR),
    expires_at: at(expires),
  });
  await db('web_sessions').insert([session('expired', -60_000), session('live', HOUR)]);
  const key = (id: string, created: number) => ({
    principal: `housekeeping-${n}`,
    key: id,
    request_hash: 'h'.repeat(64),
    status_code: 200,
    response_body: '{}',
    created_at: at(created),
  });
  await db('idempotency_keys').insert([key('old', -25 * HOUR), key('fresh', -HOUR)]);

  /** Which of the seeded rows are still there. */
  return async () => ({
    clients: (await db('mcp_clients').where('client_id', 'like', `%-${n}`).orderBy('client_id')).map((r) =>
      (r.client_id as string).replace(`-${n}`, ''),
    ),
    grants: (await db('mcp_grants').where('id', 'like', `%${n}`).orderBy('id')).map((r) =>
      (r.id as string).replace(String(n), ''),
    ),
    refresh: (
      await db('refresh_tokens').where('token_hash', 'like', `rt-%-${n}0%`).orderBy('token_hash')
    ).map((r) => (r.token_hash as string).split('-')[1]),
    tokens: (await db('access_tokens').where('token_hash', 'like', `at-%-${n}0%`).orderBy('id')).map((r) =>
      (r.id as string).replace(String(n), ''),
    ),
    codes: (await db('authorization_codes').where('code_hash', 'like', `code-%-${n}0%`)).map(
      (r) => (r.code_hash as string).split('-')[1],
    ),
    sessions: (await db('web_sessions').where('id_hash', 'like', `session-%-${n}0%`)).map(
      (r) => (r.id_hash as string).split('-')[1],
    ),
    keys: (
      await db('idempotency_keys')
        .where({ principal: `housekeeping-${n}` })
        .orderBy('key')
    ).map((r) => r.key as string),
  });
}

const AFTER_PRUNE = {
  clients: ['new', 'signed-in'],
  grants: ['glive', 'grevokednow'],
  refresh: ['glive', 'grevokednow'],
  tokens: ['tlive', 'tofrevokednow'],
  codes: ['live'],
  sessions: ['live'],
  keys: ['fresh'],
};

const UNTOUCHED = {
  clients: ['abandoned', 'new', 'signed-in'],
  grants: ['gexpired', 'glive', 'grevokedlong', 'grevokednow'],
  refresh: ['gexpired', 'glive', 'grevokedlong', 'grevokednow'],
  tokens: ['texpired', 'tlive', 'tofexpiredgrant', 'tofrevokednow'],
  codes: ['expired', 'live'],
  sessions: ['expired', 'live'],
  keys: ['fresh', 'old'],
};

const sorted = (rows: Awaited<ReturnType<Awaited<ReturnType<typeof seedRows>>>>) =>
  Object.fromEntries(Object.entries(rows).map(([k, v]) => [k, [...v].sort()]));

for (const dialect of dialects) {
  describe(`housekeeping (${dialect.name}) @db`, function () {
    this.timeout(30_000);
    let t: TestDb;
    let fx: Fixture;

    before(async () => {
      t = await dialect.open();
      fx = await buildFixture(t.db);
    });
    after(async () => {
      await t?.drop();
    });

    it('deletes expired codes, sessions, tokens, ended sign-ins, old idempotency keys and abandoned clients, and keeps the rest', async () => {
      const remaining = await seedRows(t.db, fx);
      expect(sorted(await remaining())).to.deep.equal(UNTOUCHED);
      const deleted = await pruneExpired(t.db, new Date());
      expect(sorted(await remaining())).to.deep.equal(AFTER_PRUNE);
      expect(deleted.mcp_clients).to.be.at.least(1);
      expect(deleted.idempotency_keys).to.be.at.least(1);
    });

    it('prunes on the server schedule, and stops the schedule on shutdown', async () => {
      const server = await startTestServer(t.db, { env: { PRUNE_INTERVAL_SECONDS: '1' } });
      let remaining: Awaited<ReturnType<typeof seedRows>>;
      try {
        remaining = await seedRows(t.db, fx);
        const deadline = Date.now() + 10_000;
        while (JSON.stringify(sorted(await remaining())) !== JSON.stringify(AFTER_PRUNE)) {
          if (Date.now() > deadline) expect(sorted(await remaining())).to.deep.equal(AFTER_PRUNE);
          await sleep(100);
        }
      } finally {
        await server.close();
      }
      const later = await seedRows(t.db, fx);
      await sleep(2000);
      expect(sorted(await later())).to.deep.equal(UNTOUCHED);
    });

    it('prunes from the command line with "portfolio prune"', async () => {
      const remaining = await seedRows(t.db, fx);
      const child = spawn(process.execPath, [BIN, 'prune', '--json'], {
        env: { ...process.env, DATABASE_URL: t.url, LOG_LEVEL: 'silent', HOST: '', PORT: '' },
        stdio: ['ignore', 'pipe', 'pipe'],
      });
      let stdout = '';
      let stderr = '';
      child.stdout.on('data', (d) => {
        stdout += d;
      });
      child.stderr.on('data', (d) => {
        stderr += d;
      });
      const code = await new Promise((resolve) => child.on('close', resolve));
      expect(stderr).to.equal('');
      expect(code).to.equal(0);
      const counts = JSON.parse(stdout) as Record<string, number>;
      expect(counts.authorization_codes).to.be.at.least(1);
      expect(sorted(await remaining())).to.deep.equal(AFTER_PRUNE);
    });
  });
}

describe('the database-unavailable warning @db', function () {
  this.timeout(30_000);
  let t: TestDb;
  let fx: Fixture;
  let server: RunningServer | undefined;

  before(async () => {
    t = await sqliteTestDb();
    fx = await buildFixture(t.db);
  });
  after(async () => {
    await server?.close();
    await t?.drop();
  });

  it('carries no SQL and no values of the request that hit it', async () => {
    const id = await insertDatum(t.db, {
      firmId: fx.firmA.id,
      companyId: fx.companies.acme.id,
      category: 'revenue',
      value: '1000.00',
    });
    const lines: { msg: string; fields: Record<string, unknown> }[] = [];
    const logger: Logger = {
      debug() {},
      info() {},
      warn(msg, fields = {}) {
        lines.push({ msg, fields });
      },
      error(msg, fields = {}) {
        lines.push({ msg, fields });
      },
      child() {
        return logger;
      },
    };
    const config = loadConfig({
      PORT: '0',
      HOST: '127.0.0.1',
      LOG_LEVEL: 'silent',
      DATABASE_URL: t.url,
      // No background workers: on SQLite each of their polls would wait out the busy timeout on the one
      // connection while the lock is held, ahead of the request under test.
      DOCUMENT_PARSING: 'off',
      ALERTS: 'off',
      WEBHOOK_DELIVERY: 'off',
    });
    server = await startServer(config, { db: t.db, logger });
    // Another process holds the write lock past the busy timeout.
    const holder = new Database(t.url.replace(/^sqlite:/, ''));
    holder.exec('BEGIN IMMEDIATE');
    try {
      const res = await api(server.url, `/v1/metrics/${id}/`, {
        token: fx.editor.rest,
        method: 'PATCH',
        body: { value: '424242.42', comments: [{ content: 'private-words' }] },
        // The key's claim is a plain write whose statement names the caller and the key.
        headers: { 'Idempotency-Key': 'private-key-7' },
      });
      expect(res.status).to.equal(503);
    } finally {
      holder.exec('ROLLBACK');
      holder.close();
    }
    const warning = lines.find((l) => l.msg === 'database unavailable');
    expect(warning, JSON.stringify(lines)).to.not.equal(undefined);
    const text = JSON.stringify(warning!.fields);
    expect(text).to.match(/database is locked/);
    for (const leaked of [
      id,
      '424242.42',
      'private-words',
      'private-key-7',
      'select',
      'update',
      'insert',
      'delete',
    ]) {
      expect(text.toLowerCase()).to.not.include(leaked.toLowerCase());
    }
  });
});
