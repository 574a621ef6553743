import { expect } from 'chai';
import type { Knex } from 'knex';
import { SnapshotTotals } from '../db/count-cache.ts';
import { openDb } from '../db/knex.ts';
import { onRead } from '../db/prepared.ts';
import { tokensRepo } from '../db/repos/tokens.ts';
import { countAndPage } from '../db/repos/util.ts';
import { postgresTestDb, postgresUrl, sqliteTestDb, type TestDb } from './helpers/db.ts';

const page = { limit: 10, offset: 0 };
const firm = 'f1';

/** The total of the firm's companies through the same path every list takes. */
const total = (db: Knex) =>
  countAndPage(db, db('companies').where('firm_id', firm), page, (qb) => qb.orderBy('id')).then(
    (r) => r.count,
  );

/** The statements `run` sends to the database. */
async function statements(db: Knex, run: () => Promise<unknown>): Promise<string[]> {
  const sent: string[] = [];
  const listen = (q: { sql: string }) => sent.push(q.sql);
  db.on('query', listen);
  const stop = onRead(db, listen);
  try {
    await run();
  } finally {
    db.off('query', listen);
    stop();
  }
  return sent;
}

const company = (id: string) => ({
  id,
  firm_id: firm,
  slug: id,
  name: `Company ${id}`,
  reporting_currency: 'USD',
  created_at: '2026-01-01T00:00:00.000Z',
  updated_at: '2026-01-01T00:00:00.000Z',
});

/** A fresh database with the firm and two companies, and a second connection to it. */
async function seeded(open: () => Promise<TestDb>): Promise<{ t: TestDb; other: Knex }> {
  const t = await open();
  await t.db('firms').insert({
    id: firm,
    slug: 'firm',
    name: 'Firm',
    preferred_currency: 'USD',
    created_at: '2026-01-01T00:00:00.000Z',
  });
  await t.db('companies').insert([company('c1'), company('c2')]);
  return { t, other: openDb(t.url) };
}

// On SQLite a list's total is kept while the database is unchanged. Whatever changes it — a write on
// this connection, a commit by another connection or process, a transaction's own uncommitted rows —
// the next total must be the true one.

describe('list totals kept on SQLite while the database is unchanged', () => {
  let t: TestDb;
  let other: Knex;

  before(async () => {
    ({ t, other } = await seeded(sqliteTestDb));
  });
  after(async () => {
    await other?.destroy();
    await t?.drop();
  });

  it('counts once and answers the same total again without counting while nothing changed', async () => {
    expect(await total(t.db)).to.equal(2);
    const again = await statements(t.db, async () => expect(await total(t.db)).to.equal(2));
    expect(again.filter((sql) => sql.includes('count('))).to.deep.equal([]);
    expect(again.some((sql) => sql.includes('companies'))).to.equal(true, 'the page is still read');
  });

  it('counts again after a write on the same connection', async () => {
    await total(t.db);
    await t.db('companies').insert(company('c3'));
    expect(await total(t.db)).to.equal(3);
    await t.db('companies').where({ id: 'c3' }).delete();
    expect(await total(t.db)).to.equal(2);
  });

  it('counts again after another connection commits (another process, a second node)', async () => {
    expect(await total(t.db)).to.equal(2);
    await other('companies').insert(company('c4'));
    expect(await total(t.db)).to.equal(3);
    await other('companies').where({ id: 'c4' }).update({ firm_id: firm, name: 'Renamed' });
    await other('companies').where({ id: 'c4' }).delete();
    expect(await total(t.db)).to.equal(2);
  });

  it("counts a transaction's own rows inside it, and the committed total after it rolls back", async () => {
    expect(await total(t.db)).to.equal(2);
    await t.db
      .transaction(async (trx) => {
        await trx('companies').insert(company('c5'));
        expect(await total(trx)).to.equal(3);
        throw new Error('roll back');
      })
      .catch((err: Error) => expect(err.message).to.equal('roll back'));
    expect(await total(t.db)).to.equal(2);
    expect(await total(other)).to.equal(2);
  });

  it('keeps totals of different filters apart', async () => {
    const named = (name: string) =>
      countAndPage(t.db, t.db('companies').where('firm_id', firm).where('name', name), page, (qb) =>
        qb.orderBy('id'),
      ).then((r) => r.count);
    expect(await named('Company c1')).to.equal(1);
    expect(await named('nobody')).to.equal(0);
    expect(await total(t.db)).to.equal(2);
  });

  it('reads the authentication counter once while nothing changed, and again after any change to it', async () => {
    const version = () => tokensRepo(t.db).authVersion();
    const start = await version();
    const again = await statements(t.db, async () => expect(await version()).to.equal(start));
    expect(again.filter((sql) => sql.includes('auth_version'))).to.deep.equal([]);
    // A trigger moves it for a change to a firm, on this connection.
    await t.db('firms').where({ id: firm }).update({ name: 'Firm renamed' });
    expect(await version()).to.equal(start + 1);
    // Another connection (a CLI command, a second node) commits.
    await other('auth_version')
      .where({ id: 1 })
      .update({ version: start + 5 });
    expect(await version()).to.equal(start + 5);
    await t
      .db('auth_version')
      .where({ id: 1 })
      .update({ version: start + 7 });
    expect(await version()).to.equal(start + 7);
  });
});

// On PostgreSQL a large total is kept under the snapshot it was counted in, and used again only while a
// fresh snapshot reads the same: any transaction that ends (commits or rolls back) changes it.
(postgresUrl ? describe : describe.skip)(
  'large list totals kept on PostgreSQL under their snapshot @db',
  () => {
    let t: TestDb;
    let other: Knex;
    const countSql = (db: Knex) => db('companies').where('firm_id', firm).count({ n: '*' }).toSQL();
    /** The total through a cache that keeps totals from `worthFrom` rows. */
    const counted = (totals: SnapshotTotals) => {
      const compiled = countSql(t.db);
      const { sql, bindings } = compiled;
      return totals.number(t.db, { sql, native: compiled.toNative().sql, bindings });
    };

    const counts = (sent: string[]) => sent.filter((sql) => sql.includes('count('));
    const snapshotReads = (sent: string[]) => sent.filter((sql) => !sql.includes('count('));

    before(async () => {
      ({ t, other } = await seeded(postgresTestDb));
    });
    after(async () => {
      await other?.destroy();
      await t?.drop();
    });

    it('counts a large total once, then reads only the snapshot while no transaction ended', async () => {
      const totals = new SnapshotTotals(2);
      expect(await counted(totals)).to.equal(2);
      const again = await statements(t.db, async () => expect(await counted(totals)).to.equal(2));
      expect(counts(again)).to.deep.equal([]);
      expect(snapshotReads(again)).to.have.length(1);
    });

    it('counts again after another connection commits, and never counts what is not committed', async () => {
      const totals = new SnapshotTotals(2);
      expect(await counted(totals)).to.equal(2);
      await other('companies').insert(company('c3'));
      expect(await counted(totals)).to.equal(3);
      // A transaction still open elsewhere: its row is not seen, and when it commits the total moves.
      const trx = await other.transaction();
      await trx('companies').insert(company('c4'));
      expect(await counted(totals)).to.equal(3);
      await trx.commit();
      expect(await counted(totals)).to.equal(4);
      const rolledBack = await other.transaction();
      await rolledBack('companies').insert(company('c5'));
      expect(await counted(totals)).to.equal(4);
      await rolledBack.rollback();
      expect(await counted(totals)).to.equal(4);
      await other('companies').whereIn('id', ['c3', 'c4']).delete();
      expect(await counted(totals)).to.equal(2);
    });

    it('counts a small total every time, without reading the snapshot first', async () => {
      const totals = new SnapshotTotals(10);
      expect(await counted(totals)).to.equal(2);
      const again = await statements(t.db, async () => expect(await counted(totals)).to.equal(2));
      expect(counts(again)).to.have.length(1);
      expect(snapshotReads(again)).to.deep.equal([]);
    });

    it('keeps the total of a list of 5,000 rows or more through the path every list takes', async () => {
      const many = Array.from({ length: 5_000 }, (_, i) => company(`m${i}`));
      for (let i = 0; i < many.length; i += 1_000) await other('companies').insert(many.slice(i, i + 1_000));
      try {
        expect(await total(t.db)).to.equal(5_002);
        const again = await statements(t.db, async () => expect(await total(t.db)).to.equal(5_002));
        expect(counts(again)).to.deep.equal([]);
        await other('companies').where({ id: 'm0' }).delete();
        expect(await total(t.db)).to.equal(5_001);
        await t.db.transaction(async (trx) => {
          await trx('companies').insert(company('m0'));
          const inside = await statements(t.db, async () => expect(await total(trx)).to.equal(5_002));
          expect(counts(inside), 'a transaction counts its own rows').to.have.length(1);
        });
      } finally {
        await other('companies').where('id', 'like', 'm%').delete();
      }
    });
  },
);
