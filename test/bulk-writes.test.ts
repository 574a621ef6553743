import { expect } from 'chai';
import { standardCategoryId } from '../core/categories.ts';
import { newId } from '../db/ids.ts';
import type { NewFinancing } from '../db/repos/cap-table.ts';
import { inTransaction } from '../db/repos/index.ts';
import type { NewDatum } from '../db/repos/metric-writes.ts';
import { dialects, type TestDb } from './helpers/db.ts';
import { buildFixture, type Fixture } from './helpers/fixture.ts';

const AT = '2026-03-01T00:00:00.000Z';

function monthEnd(index: number): string {
  return new Date(Date.UTC(2000, index + 1, 0)).toISOString().slice(0, 10);
}

for (const dialect of dialects) {
  describe(`bulk repository writes, as the import uses them (${dialect.name}) @db`, () => {
    let t: TestDb;
    let fx: Fixture;

    before(async () => {
      t = await dialect.open();
      fx = await buildFixture(t.db);
    });
    after(async () => {
      await t?.drop();
    });

    it('inserts more metric data than one statement may bind, and finds each live datum by its key', async () => {
      const category = standardCategoryId('revenue');
      // 14 columns a row: 2,600 rows are over 36,000 bound values, more than SQLite takes at once.
      const data: NewDatum[] = Array.from({ length: 2600 }, (_, i) => ({
        id: newId(),
        company_id: fx.companies.gamma.id,
        category_id: category,
        cadence: 'month',
        date: monthEnd(i),
        value: String(i),
        currency: 'USD',
        budget_id: null,
        detailed_source: 'import',
      }));
      await inTransaction(fx.repos, (trx) => trx.metricWrites.insertData(fx.firmA.id, data, AT));

      const live = await fx.repos.metricWrites.liveData(fx.firmA.id, [fx.companies.gamma.id], [category]);
      expect(live.size).to.equal(2600);
      const last = data[2599]!;
      expect(live.get([fx.companies.gamma.id, category, last.date, 'month', ''].join('|'))).to.include({
        id: last.id,
        value: '2599',
        currency: 'USD',
      });
      const stored = await t.db('metric_data').where({ id: last.id }).first();
      expect(stored).to.include({ firm_id: fx.firmA.id, detailed_source: 'import', created_at: AT });
      expect(stored.deleted_at).to.equal(null);
    });

    it('replaces values and keeps each replaced one in metric_history', async () => {
      const [first, second] = [newId(), newId()];
      const base = {
        company_id: fx.companies.beta.id,
        category_id: standardCategoryId('cash_in_bank'),
        cadence: 'point_in_time',
        budget_id: null,
        detailed_source: 'import',
      };
      await fx.repos.metricWrites.insertData(
        fx.firmA.id,
        [
          { ...base, id: first, date: '2025-01-31', value: '10', currency: 'USD' },
          { ...base, id: second, date: '2025-02-28', value: '20', currency: 'USD' },
        ],
        AT,
      );
      const later = '2026-04-01T00:00:00.000Z';
      await fx.repos.metricWrites.replaceValues(
        [
          { id: first, old_value: '10', old_currency: 'USD', value: '11', currency: 'USD' },
          { id: second, old_value: '20', old_currency: 'USD', value: '18', currency: 'EUR' },
        ],
        'import',
        later,
      );
      const rows = await t.db('metric_data').whereIn('id', [first, second]).orderBy('date');
      expect(rows.map((r) => [r.value, r.currency, r.updated_at])).to.deep.equal([
        ['11', 'USD', later],
        ['18', 'EUR', later],
      ]);
      const history = await t.db('metric_history').where({ datum_id: second });
      expect(history).to.have.length(1);
      expect(history[0]).to.include({
        old_value: '20',
        new_value: '18',
        old_currency: 'USD',
        new_currency: 'EUR',
        changed_by: 'import',
        changed_at: later,
      });
      expect(Number(history[0].comments_added)).to.equal(0);
    });

    it('inserts rounds whose pari passu links point at a round further down, then rewrites one whole', async () => {
      const round = (name: string, date: string, pariPassu: string[] = []): NewFinancing => ({
        id: newId(),
        company_id: fx.companies.acme.id,
        name,
        closing_date: date,
        pre_money: { value: '1000000', currency: 'USD', fx_rate: '1', is_custom_rate: false },
        round_size: { value: '250000', currency: 'USD', fx_rate: '1', is_custom_rate: false },
        round_size_converted_value: '250000',
        fully_diluted_shares: null,
        is_crypto: false,
        liquidation_multiple: null,
        cap_multiple: null,
        seniority_position: null,
        participation_type: null,
        created_at: AT,
        co_investors: [{ name: 'Lead Ventures', is_lead: true }],
        pari_passu_ids: pariPassu,
      });
      const b = round('Bulk B', '2024-06-01');
      const a = round('Bulk A', '2024-01-01', [b.id]);
      const c = round('Bulk C', '2024-09-01');
      await inTransaction(fx.repos, (trx) => trx.capTable.insertFinancings(fx.firmA.id, [a, b, c]));

      const scope = { firmId: fx.firmA.id, companyIds: null };
      const [storedA] = await fx.repos.capTable.financingsById(scope, [a.id]);
      expect(storedA!.pari_passu_rounds).to.deep.equal([{ id: b.id, name: 'Bulk B' }]);
      expect(storedA!.co_investors).to.deep.equal([{ name: 'Lead Ventures', is_lead: true }]);

      await inTransaction(fx.repos, (trx) =>
        trx.capTable.replaceFinancings([
          {
            ...a,
            name: 'Bulk A (amended)',
            is_crypto: true,
            co_investors: [
              { name: 'Other Partners', is_lead: false },
              { name: 'New Lead', is_lead: true },
            ],
            pari_passu_ids: [c.id, b.id],
          },
        ]),
      );
      const [amended] = await fx.repos.capTable.financingsById(scope, [a.id]);
      expect(amended).to.include({ name: 'Bulk A (amended)', is_crypto: true, created_at: AT });
      expect(amended!.co_investors).to.deep.equal([
        { name: 'Other Partners', is_lead: false },
        { name: 'New Lead', is_lead: true },
      ]);
      expect(amended!.pari_passu_rounds.map((r) => r.id)).to.deep.equal([c.id, b.id]);
      const [untouched] = await fx.repos.capTable.financingsById(scope, [b.id]);
      expect(untouched!.co_investors).to.deep.equal([{ name: 'Lead Ventures', is_lead: true }]);
    });

    it('writes nothing of a bulk insert whose transaction fails', async () => {
      const before = Number((await t.db('financings').count({ n: '*' }).first())?.n);
      const broken: NewFinancing = {
        id: newId(),
        company_id: fx.companies.acme.id,
        name: 'Dangling',
        closing_date: '2024-01-01',
        pre_money: { value: null, currency: null, fx_rate: null, is_custom_rate: null },
        round_size: { value: null, currency: null, fx_rate: null, is_custom_rate: null },
        round_size_converted_value: null,
        fully_diluted_shares: null,
        is_crypto: false,
        liquidation_multiple: null,
        cap_multiple: null,
        seniority_position: null,
        participation_type: null,
        created_at: AT,
        co_investors: [],
        pari_passu_ids: [newId()],
      };
      let failed = false;
      try {
        await inTransaction(fx.repos, (trx) => trx.capTable.insertFinancings(fx.firmA.id, [broken]));
      } catch {
        failed = true;
      }
      expect(failed, 'a link to an unknown round is refused').to.equal(true);
      expect(Number((await t.db('financings').count({ n: '*' }).first())?.n)).to.equal(before);
    });
  });
}
