import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { expect } from 'chai';
import { openDb } from '../db/knex.ts';
import type { RunningServer } from '../server/http.ts';
import { type ChildServer, spawnServer } from './helpers/child-server.ts';
import { insertDatum } from './helpers/datums.ts';
import { dialects, type TestDb } from './helpers/db.ts';
import { buildFixture, type Fixture } from './helpers/fixture.ts';
import { api, startTestServer } from './helpers/server.ts';
import { buildWorld } from './helpers/world.ts';

/** Makes every store of an idempotent response fail, as a process dying at that moment would. */
async function breakResponseStore(t: TestDb): Promise<() => Promise<void>> {
  if (t.dialect === 'sqlite') {
    await t.db.raw(
      `create trigger fail_response_store before update on idempotency_keys
       begin select raise(abort, 'response store failed'); end`,
    );
    return async () => {
      await t.db.raw('drop trigger fail_response_store');
    };
  }
  await t.db.raw(
    `create function fail_response_store() returns trigger language plpgsql as
     $$ begin raise exception 'response store failed'; end $$`,
  );
  await t.db.raw(
    `create trigger fail_response_store before update on idempotency_keys
     for each row execute function fail_response_store()`,
  );
  return async () => {
    await t.db.raw('drop trigger fail_response_store on idempotency_keys');
    await t.db.raw('drop function fail_response_store()');
  };
}

for (const dialect of dialects) {
  describe(`exactly-once keyed writes (${dialect.name}) @db`, () => {
    let t: TestDb;
    let fx: Fixture;
    let server: RunningServer;

    before(async () => {
      t = await dialect.open();
      fx = await buildFixture(t.db);
      server = await startTestServer(t.db);
    });
    after(async () => {
      await server?.close();
      await t?.drop();
    });

    it('stores the idempotent response in the write transaction: when storing it fails, the write is rolled back', async () => {
      const id = await insertDatum(t.db, {
        firmId: fx.firmA.id,
        companyId: fx.companies.acme.id,
        category: 'revenue',
        value: '1000.00',
      });
      const restore = await breakResponseStore(t);
      const body = { value: '5', comments: [{ content: 'exactly once' }] };
      const headers = { 'Idempotency-Key': `durable-${dialect.name}` };
      try {
        const failed = await api(server.url, `/v1/metrics/${id}/`, {
          token: fx.editor.rest,
          method: 'PATCH',
          body,
          headers,
        });
        expect(failed.status).to.equal(500);
        const row = await t.db('metric_data').where({ id }).first();
        expect(row.value).to.equal('1000.00');
        expect(await t.db('metric_comments').where({ datum_id: id })).to.have.length(0);
      } finally {
        await restore();
      }
      // The key was freed with the rolled-back write: the retry writes once and is stored.
      const retry = await api(server.url, `/v1/metrics/${id}/`, {
        token: fx.editor.rest,
        method: 'PATCH',
        body,
        headers,
      });
      expect(retry.status).to.equal(200);
      const replay = await api(server.url, `/v1/metrics/${id}/`, {
        token: fx.editor.rest,
        method: 'PATCH',
        body,
        headers,
      });
      expect(replay.headers.get('idempotent-replayed')).to.equal('true');
      expect(await t.db('metric_comments').where({ datum_id: id })).to.have.length(1);
    });

    it('stores the idempotent response of a financing in the write transaction too', async () => {
      const add = () =>
        api(server.url, '/beta/investment/financing-rounds/add/', {
          token: fx.admin.rest,
          method: 'POST',
          headers: { 'Idempotency-Key': `financing-${dialect.name}` },
          body: {
            financing_rounds: [
              {
                company_id: fx.companies.acme.id,
                name: 'Durable seed',
                pre_money_valuation: { value: '1000000', currency: 'USD' },
                round_size: { value: '250000', currency: 'USD' },
                fully_diluted_shares: '100000',
                closing_date: '2025-03-31',
                co_investors: [],
              },
            ],
          },
        });
      const restore = await breakResponseStore(t);
      try {
        const failed = await add();
        expect(failed.status).to.equal(500);
        expect(await t.db('financings').where({ name: 'Durable seed' })).to.have.length(0);
      } finally {
        await restore();
      }
      const retry = await add();
      expect(retry.status, JSON.stringify(retry.body)).to.be.within(200, 201);
      expect((await add()).headers.get('idempotent-replayed')).to.equal('true');
      expect(await t.db('financings').where({ name: 'Durable seed' })).to.have.length(1);
    });
  });
}

describe('SQLite durability settings', () => {
  const synchronous = async (options?: { sqliteSynchronous: 'FULL' | 'NORMAL' }) => {
    const db = openDb(`sqlite:${join(mkdtempSync(join(tmpdir(), 'pds-sync-')), 'x.db')}`, options);
    try {
      const rows = (await db.raw('pragma synchronous')) as { synchronous: number }[];
      return rows[0]!.synchronous;
    } finally {
      await db.destroy();
    }
  };

  it('syncs every commit to disk (synchronous=FULL) by default', async () => {
    expect(await synchronous()).to.equal(2);
  });

  it('runs with synchronous=NORMAL when SQLITE_SYNCHRONOUS=NORMAL is configured', async () => {
    expect(await synchronous({ sqliteSynchronous: 'NORMAL' })).to.equal(1);
  });
});

for (const dialect of dialects) {
  describe(`keyed writes across SIGKILL (${dialect.name}) @db`, function () {
    this.timeout(120_000);
    let t: TestDb;
    let server: ChildServer | undefined;

    before(async () => {
      t = await dialect.open();
    });
    after(async () => {
      await server?.stop();
      await t?.drop();
    });

    it('writes each keyed request exactly once when the server is killed mid-stream and every request is retried with its key', async () => {
      const w = await buildWorld(t.db);
      const token = w.roles.admin.rest;
      const sent = new Map<string, { content: string; acked: boolean }>();
      let serial = 0;
      const patch = (url: string, key: string, content: string) =>
        api(url, `/v1/metrics/${w.own.datum}/`, {
          token,
          method: 'PATCH',
          body: { comments: [{ content }] },
          headers: { 'Idempotency-Key': key },
        });

      const running = await spawnServer(t.url);
      server = running;
      let acks = 0;
      let killing: Promise<void> | undefined;
      await Promise.all(
        Array.from({ length: 6 }, async (_, lane) => {
          while (!killing) {
            const key = `kill-${dialect.name}-${lane}-${++serial}`;
            const entry = { content: `keyed ${key}`, acked: false };
            sent.set(key, entry);
            try {
              const res = await patch(running.url, key, entry.content);
              if (res.status !== 200) throw new Error(`PATCH answered ${res.status}`);
              entry.acked = true;
              if (++acks >= 25 && !killing) killing = running.kill();
            } catch {
              return;
            }
          }
        }),
      );
      await killing;

      // Long after the crash: claims left unanswered by the dead process are past their lease.
      await t
        .db('idempotency_keys')
        .whereNull('status_code')
        .update({ created_at: '2000-01-01T00:00:00.000Z' });
      server = await spawnServer(t.url);
      const restarted = server;
      const retries = await Promise.all(
        [...sent].map(async ([key, entry]) => ({
          entry,
          res: await patch(restarted.url, key, entry.content),
        })),
      );
      for (const { entry, res } of retries) {
        expect(res.status, JSON.stringify(res.body)).to.equal(200);
        if (entry.acked) expect(res.headers.get('idempotent-replayed')).to.equal('true');
      }
      const contents = (await t.db('metric_comments').where({ datum_id: w.own.datum }).select('content')).map(
        (r) => r.content as string,
      );
      for (const { content } of sent.values()) {
        expect(
          contents.filter((c) => c === content),
          content,
        ).to.have.length(1);
      }
    });
  });
}

describe('SQLite memory settings', () => {
  it("keeps SQLite's page cache to 4 MB (better-sqlite3 would keep 16 MB resident)", async () => {
    const db = openDb(`sqlite:${join(mkdtempSync(join(tmpdir(), 'pds-cache-')), 'x.db')}`);
    try {
      const rows = (await db.raw('pragma cache_size')) as { cache_size: number }[];
      expect(rows[0]!.cache_size).to.equal(-4000);
    } finally {
      await db.destroy();
    }
  });
});
