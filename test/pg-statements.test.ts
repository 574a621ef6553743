import { expect } from 'chai';
import type { Knex } from 'knex';
import { kept } from '../db/kept.ts';
import { openDb } from '../db/knex.ts';
import { postgresTestDb, postgresUrl, type TestDb } from './helpers/db.ts';

// On PostgreSQL the kept reads run as named queries of pg, prepared once per connection. A named
// statement must never answer differently from the text it was made from, and must survive a table
// changed under it by another node.

(postgresUrl ? describe : describe.skip)('prepared statements on PostgreSQL @db', () => {
  let t: TestDb;
  let db: Knex;
  let other: Knex;

  const byId = kept((db, p: { id: string }) => db('firms').where({ id: p.id }).first('id', 'name'));
  const all = kept((db, p: { id: string }) => db('firms').where({ id: p.id }).first());

  before(async () => {
    t = await postgresTestDb();
    db = openDb(t.url);
    other = openDb(t.url);
    await db('firms').insert({
      id: 'f1',
      slug: 'f1',
      name: 'Firm',
      preferred_currency: 'USD',
      created_at: '2026-01-01T00:00:00.000Z',
    });
  });
  after(async () => {
    await db?.destroy();
    await other?.destroy();
    await t?.drop();
  });

  it("runs a kept read by name again and again with each call's own values", async () => {
    for (let i = 0; i < 3; i++) {
      expect(await byId.first(db, { id: 'f1' })).to.deep.equal({ id: 'f1', name: 'Firm' });
      expect(await byId.first(db, { id: 'nope' })).to.equal(undefined);
    }
  });

  it('answers a kept select * after another node adds a column to its table, with the new column', async () => {
    // Every connection of the reader's pool prepares it first.
    await Promise.all(Array.from({ length: 4 }, () => all.first(db, { id: 'f1' })));
    expect(await all.first(db, { id: 'f1' })).to.not.have.property('extra');
    await other.schema.alterTable('firms', (tb) => {
      tb.string('extra').notNullable().defaultTo('added');
    });
    for (let i = 0; i < 6; i++)
      expect(await all.first(db, { id: 'f1' })).to.include({ id: 'f1', extra: 'added' });
  });

  it('reads what a transaction of knex wrote once it committed, and inside it through the transaction', async () => {
    await db.transaction(async (trx) => {
      await trx('firms').where({ id: 'f1' }).update({ name: 'Renamed' });
      expect(await byId.first(trx, { id: 'f1' })).to.deep.equal({ id: 'f1', name: 'Renamed' });
    });
    expect(await byId.first(db, { id: 'f1' })).to.deep.equal({ id: 'f1', name: 'Renamed' });
  });

  it('closes its own pool with the database: no connection of it is left', async () => {
    // Its connections are told apart by their application name: other clients of the database come and go.
    const name = `pool-close-${process.pid}`;
    const third = openDb(`${t.url}&application_name=${name}`);
    await byId.first(third, { id: 'f1' });
    const open = async () =>
      (
        (await other.raw(
          'select count(*)::int as n from pg_stat_activity where datname = current_database() and application_name = ?',
          [name],
        )) as { rows: { n: number }[] }
      ).rows[0]!.n;
    expect(await open()).to.be.above(0);
    await third.destroy();
    // A backend leaves pg_stat_activity a moment after its client has closed the connection.
    const deadline = Date.now() + 5_000;
    while ((await open()) > 0 && Date.now() < deadline) await new Promise((r) => setTimeout(r, 50));
    expect(await open()).to.equal(0);
  });
});
