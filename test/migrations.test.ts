import { expect } from 'chai';
import { migrateLatest, migrateRollbackAll } from '../db/knex.ts';
import { dialects } from './helpers/db.ts';

for (const dialect of dialects) {
  describe(`migrations (${dialect.name}) @db`, () => {
    it('run down to nothing and up again, and a second run applies nothing', async () => {
      const t = await dialect.open();
      try {
        expect(await t.db.schema.hasTable('metric_data')).to.equal(true);
        const categories = await t.db('metric_categories').count({ n: '*' }).first();
        expect(Number(categories?.n)).to.equal(55);
        await migrateRollbackAll(t.db);
        expect(await t.db.schema.hasTable('metric_data')).to.equal(false);
        expect(await t.db.schema.hasTable('firms')).to.equal(false);
        const applied = await migrateLatest(t.db);
        expect(applied.length).to.be.greaterThan(1);
        expect(await migrateLatest(t.db)).to.deep.equal([]);
        expect(await t.db.schema.hasTable('idempotency_keys')).to.equal(true);
      } finally {
        await t.drop();
      }
    });
  });
}
