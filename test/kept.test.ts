import { expect } from 'chai';
import type { Knex } from 'knex';
import { kept, Literal } from '../db/kept.ts';
import { onRead } from '../db/prepared.ts';
import { dialects, type TestDb } from './helpers/db.ts';

// A kept query is compiled once per shape with stand-in values; every run must bind its own values in
// the right places, keep shapes apart, and behave like any other query inside and outside a transaction.

for (const dialect of dialects) {
  describe(`kept queries (${dialect.name})`, () => {
    let t: TestDb;
    const firm = 'kf1';

    const company = (id: string, name: string, status = 'active') => ({
      id,
      firm_id: firm,
      slug: id,
      name,
      status,
      reporting_currency: 'USD',
      created_at: '2026-01-01T00:00:00.000Z',
      updated_at: '2026-01-01T00:00:00.000Z',
    });

    const byFirm = kept(
      (db, p: { firmId: string; ids?: readonly string[]; limit: number; offset: number }) => {
        const qb = db('companies').where('firm_id', p.firmId);
        if (p.ids) qb.whereIn('id', p.ids);
        return qb.orderBy('id').select('id').limit(p.limit).offset(p.offset);
      },
    );

    const ids = async (db: Knex, p: Parameters<typeof byFirm.rows>[1]) =>
      (await byFirm.rows<{ id: string }>(db, p)).map((r) => r.id);

    before(async () => {
      t = await dialect.open();
      await t.db('firms').insert([
        {
          id: firm,
          slug: 'kept-one',
          name: 'One',
          preferred_currency: 'USD',
          created_at: '2026-01-01T00:00:00.000Z',
        },
        {
          id: 'kf2',
          slug: 'kept-two',
          name: 'Two',
          preferred_currency: 'USD',
          created_at: '2026-01-01T00:00:00.000Z',
        },
      ]);
      await t
        .db('companies')
        .insert([
          company('c1', 'Alpha'),
          company('c2', 'Beta', 'exited'),
          company('c3', 'Gamma'),
          { ...company('c9', 'Other'), firm_id: 'kf2' },
        ]);
    });
    after(() => t.drop());

    it('binds each run its own values, numbers and strings alike', async () => {
      expect(await ids(t.db, { firmId: firm, limit: 2, offset: 0 })).to.deep.equal(['c1', 'c2']);
      expect(await ids(t.db, { firmId: firm, limit: 2, offset: 2 })).to.deep.equal(['c3']);
      expect(await ids(t.db, { firmId: 'kf2', limit: 10, offset: 0 })).to.deep.equal(['c9']);
      // An offset of 0 after a non-zero one: the kept SQL always carries its offset.
      expect(await ids(t.db, { firmId: firm, limit: 1, offset: 0 })).to.deep.equal(['c1']);
    });

    it('keeps one shape per list length and per given or missing value', async () => {
      expect(await ids(t.db, { firmId: firm, ids: ['c3'], limit: 10, offset: 0 })).to.deep.equal(['c3']);
      expect(await ids(t.db, { firmId: firm, ids: ['c1', 'c3'], limit: 10, offset: 0 })).to.deep.equal([
        'c1',
        'c3',
      ]);
      expect(await ids(t.db, { firmId: firm, ids: ['c9', 'c2'], limit: 10, offset: 0 })).to.deep.equal([
        'c2',
      ]);
      expect(await ids(t.db, { firmId: firm, ids: undefined, limit: 10, offset: 0 })).to.have.length(3);
    });

    it('compiles the SQL knex would, with the values in binding order', async () => {
      const { sql, bindings } = byFirm.sqlOf(t.db, { firmId: firm, ids: ['c1', 'c2'], limit: 5, offset: 3 });
      const expected = t
        .db('companies')
        .where('firm_id', firm)
        .whereIn('id', ['c1', 'c2'])
        .orderBy('id')
        .select('id')
        .limit(5)
        .offset(3)
        .toSQL();
      expect(sql).to.equal(expected.sql);
      expect(bindings).to.deep.equal(expected.bindings);
    });

    it('writes a literal into the SQL and keeps a shape per literal and per boolean', async () => {
      const named = kept((db, p: { firmId: string; order: Literal; activeOnly: boolean }) => {
        const qb = db('companies').where('firm_id', p.firmId).select('id');
        if (p.activeOnly) qb.where('status', 'active');
        return qb.orderBy('name', p.order.value as 'asc' | 'desc');
      });
      const run = async (order: string, activeOnly: boolean) =>
        (await named.rows<{ id: string }>(t.db, { firmId: firm, order: new Literal(order), activeOnly })).map(
          (r) => r.id,
        );
      expect(await run('asc', false)).to.deep.equal(['c1', 'c2', 'c3']);
      expect(await run('desc', false)).to.deep.equal(['c3', 'c2', 'c1']);
      expect(await run('desc', true)).to.deep.equal(['c3', 'c1']);
      expect(
        named.sqlOf(t.db, { firmId: firm, order: new Literal('desc'), activeOnly: true }).bindings,
      ).to.deep.equal([firm, 'active']);
    });

    it('runs inside a transaction, seeing its uncommitted rows, and outside it does not', async () => {
      await t.db
        .transaction(async (trx) => {
          await trx('companies').insert(company('c4', 'Delta'));
          expect(await ids(trx, { firmId: firm, limit: 10, offset: 0 })).to.include('c4');
          throw new Error('roll back');
        })
        .catch((err: Error) => expect(err.message).to.equal('roll back'));
      expect(await ids(t.db, { firmId: firm, limit: 10, offset: 0 })).not.to.include('c4');
    });

    it('never reads inside a transaction that holds the connection, but after it', async () => {
      let release!: () => void;
      const held = new Promise<void>((resolve) => {
        release = resolve;
      });
      let inserted!: () => void;
      const insertedYet = new Promise<void>((resolve) => {
        inserted = resolve;
      });
      const open = t.db
        .transaction(async (trx) => {
          await trx('companies').insert(company('c5', 'Epsilon'));
          inserted();
          await held;
          throw new Error('roll back');
        })
        .catch((err: Error) => err.message);
      await insertedYet;
      const read = ids(t.db, { firmId: firm, limit: 10, offset: 0 });
      await new Promise((resolve) => setTimeout(resolve, 30));
      release();
      expect(await open).to.equal('roll back');
      expect(await read).to.deep.equal(['c1', 'c2', 'c3']);
    });

    it('reports each prepared read with its duration, as the query-duration metric expects', async () => {
      const reads: { sql: string; seconds: number }[] = [];
      const stop = onRead(t.db, (statement, seconds) => reads.push({ sql: statement.sql, seconds }));
      try {
        await ids(t.db, { firmId: firm, limit: 1, offset: 0 });
      } finally {
        stop();
      }
      expect(reads).to.have.length(1);
      expect(reads[0]!.sql).to.match(/from ["`]companies["`]/);
      expect(reads[0]!.seconds).to.be.a('number').and.at.least(0);
    });

    it('refuses a query that writes a value into its SQL or changes it before knex binds it', async () => {
      const inlined = kept((db, p: { column: string }) => db('companies').select('id').orderBy(p.column));
      const changed = kept((db, p: { name: string }) =>
        db('companies').whereRaw('lower(name) = ?', [p.name.toLowerCase()]),
      );
      for (const run of [
        () => inlined.rows(t.db, { column: 'name' }),
        () => changed.rows(t.db, { name: 'Alpha' }),
      ]) {
        let error: Error | undefined;
        try {
          await run();
        } catch (err) {
          error = err as Error;
        }
        expect(error?.message).to.match(/must pass its values to knex unchanged/);
      }
    });

    it('reports a failing statement as knex would, with the connection given back', async () => {
      const broken = kept((db, p: { firmId: string }) => db('no_such_table').where('firm_id', p.firmId));
      let error: Error | undefined;
      try {
        await broken.rows(t.db, { firmId: firm });
      } catch (err) {
        error = err as Error;
      }
      expect(error?.message).to.match(/no_such_table/);
      // The pool still serves: the connection was released.
      expect(await ids(t.db, { firmId: firm, limit: 1, offset: 0 })).to.deep.equal(['c1']);
    });
  });
}
