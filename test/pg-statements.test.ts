import { expect } from 'chai';
import knexFactory, { type Knex } from 'knex';
import { openDb } from '../db/knex.ts';
import { PreparingPgClient } from '../db/pg-client.ts';
import { postgresTestDb, postgresUrl, type TestDb } from './helpers/db.ts';

// On PostgreSQL each connection prepares a query shape once, by name. A kept statement must never
// answer differently from the text it was made from, and must survive a table changed under it.

(postgresUrl ? describe : describe.skip)('prepared statements on PostgreSQL @db', () => {
  let t: TestDb;
  let db: Knex;
  let other: Knex;

  /** The statements this connection holds prepared (the one connection of a pool of one). */
  const prepared = async (db: Knex) =>
    (await db.raw("select name from pg_prepared_statements where name like 'pds_%'")).rows as {
      name: string;
    }[];

  before(async () => {
    t = await postgresTestDb();
    // One connection, so that what it prepared can be seen from it.
    db = knexFactory({
      client: PreparingPgClient as unknown as typeof knexFactory.Client,
      connection: t.url,
      pool: { min: 1, max: 1 },
    });
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

  it("prepares a query shape once and runs it again by name, with each call's own values", async () => {
    const byId = (id: string) => db('firms').where({ id }).first('id', 'name');
    expect(await byId('f1')).to.deep.equal({ id: 'f1', name: 'Firm' });
    const after = await prepared(db);
    expect(await byId('nope')).to.equal(undefined);
    expect(await byId('f1')).to.deep.equal({ id: 'f1', name: 'Firm' });
    expect((await prepared(db)).length).to.equal(after.length);
    expect(after.length).to.be.greaterThan(0);
  });

  it('answers a kept select * after another node adds a column to its table, with the new column', async () => {
    const all = () => db('firms').where({ id: 'f1' }).first();
    expect(await all()).to.not.have.property('extra');
    await other.schema.alterTable('firms', (tb) => {
      tb.string('extra').notNullable().defaultTo('added');
    });
    expect(await all()).to.include({ id: 'f1', extra: 'added' });
    expect(await all()).to.include({ id: 'f1', extra: 'added' });
  });

  it('answers rows as plain objects of their columns, a later column of a name winning, __proto__ an own column', async () => {
    const { rows } = (await db.raw(
      `select 'f1' as id, 1 as n, null as gone, 'first' as dup, 'second' as dup, 'p' as "__proto__"`,
    )) as { rows: Record<string, unknown>[] };
    expect(rows).to.have.length(1);
    const [row] = rows as [Record<string, unknown>];
    expect(Object.getPrototypeOf(row)).to.equal(Object.prototype);
    expect(Object.keys(row)).to.deep.equal(['id', 'n', 'gone', 'dup', '__proto__']);
    expect(row).to.include({ id: 'f1', n: 1, gone: null, dup: 'second' });
    expect(Object.getOwnPropertyDescriptor(row, '__proto__')?.value).to.equal('p');
    // Many rows of one shape, and a shape of the same names in another order.
    const many = await db.raw('select g as a, g * 2 as b from generate_series(1, 3) g');
    expect(many.rows).to.deep.equal([
      { a: 1, b: 2 },
      { a: 2, b: 4 },
      { a: 3, b: 6 },
    ]);
    expect((await db.raw('select 2 as b, 1 as a')).rows).to.deep.equal([{ b: 2, a: 1 }]);
  });

  it('keeps the row mode a query asks for', async () => {
    const arrays = await db('firms').where({ id: 'f1' }).select('id', 'name').options({ rowMode: 'array' });
    expect(arrays).to.deep.equal([['f1', 'Firm']]);
  });
});
