import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { expect } from 'chai';
import { STANDARD_CATEGORIES, standardCategoryId } from '../core/categories.ts';
import { newId } from '../db/ids.ts';
import type { RunningServer } from '../server/http.ts';
import { dialects, type TestDb } from './helpers/db.ts';
import { buildFixture, type Fixture } from './helpers/fixture.ts';
import { mcpClient } from './helpers/mcp.ts';
import { assertReference } from './helpers/reference.ts';
import { startTestServer } from './helpers/server.ts';

const T = '2026-01-05T00:00:00.000Z';
const stocks = new Set(STANDARD_CATEGORIES.filter((c) => c.pointInTime).map((c) => c.name));
const money = new Set(STANDARD_CATEGORIES.filter((c) => c.kind === 'currency').map((c) => c.name));

/** Last day of a month of 2024–2026, `YYYY-MM-DD`. */
function monthEnd(ym: string): string {
  const [y, m] = ym.split('-').map(Number) as [number, number];
  return `${ym}-${String(new Date(Date.UTC(y, m, 0)).getUTCDate()).padStart(2, '0')}`;
}

/** `2025-01` … `2025-12` style month lists. */
function months(from: string, to: string): string[] {
  const out: string[] = [];
  let [y, m] = from.split('-').map(Number) as [number, number];
  for (;;) {
    const ym = `${y}-${String(m).padStart(2, '0')}`;
    out.push(ym);
    if (ym === to) return out;
    m += 1;
    if (m === 13) {
      m = 1;
      y += 1;
    }
  }
}

interface Figure {
  value: string | null;
  unit: string;
  currency: string | null;
  period: { from: string; to: string } | null;
  source: { categories: string[]; cadence: string | null; dates: string[]; datum_ids: string[] };
  reason: string | null;
  converted: Record<string, string | null> | null;
}
interface Series {
  category: string;
  currency: string | null;
  cadence: string | null;
  points: { month: string; value: string | null; datum_id: string | null; converted_value: string | null }[];
  latest: Figure & { date: string | null };
  mom: Figure;
  qoq: Figure;
  yoy: Figure;
  yoy_month: Figure;
  cmgr: Figure;
}
interface Performance {
  window: { from: string; to: string } | null;
  currency: string | null;
  series: Record<string, Series>;
}
interface Summary {
  as_of_month: string | null;
  currency: string | null;
  currency_note: string;
  fx_rates_used: { from_currency: string; date: string; rate: string }[];
  latest: Record<string, Figure & { date: string | null }>;
  [figure: string]: unknown;
}

for (const dialect of dialects) {
  describe(`analytics tools over MCP (${dialect.name}) @db`, () => {
    let t: TestDb;
    let fx: Fixture;
    let server: RunningServer;
    let mcp: Client;
    const ids: Record<string, string> = {};

    async function addCompany(name: string, currency = 'USD'): Promise<string> {
      const id = newId();
      await fx.repos.companies.create({
        id,
        firm_id: fx.firmA.id,
        name,
        slug: name.toLowerCase().replace(/\W+/g, '-'),
        description: '',
        sector: 'Fintech',
        firm_sector: 'Software',
        city: 'Paris',
        status: 'active',
        unique_ref: '',
        website: '',
        logo_url: 'https://logos.example/x.png',
        fiscal_year_end: '12-31',
        reporting_currency: currency,
        investment_lead_id: null,
        created_at: T,
        updated_at: T,
      });
      return id;
    }

    async function put(
      companyId: string,
      category: string,
      ym: string,
      value: string,
      extra: { cadence?: string; currency?: string | null; [column: string]: unknown } = {},
    ): Promise<string> {
      const id = newId();
      await t.db('metric_data').insert({
        id,
        firm_id: fx.firmA.id,
        company_id: companyId,
        category_id: standardCategoryId(category),
        cadence: stocks.has(category) ? 'point_in_time' : 'month',
        date: monthEnd(ym),
        value,
        currency: money.has(category) ? 'USD' : null,
        budget_id: null,
        detailed_source: '',
        archived: false,
        deleted_at: null,
        created_at: T,
        updated_at: T,
        ...extra,
      });
      return id;
    }

    async function call<T>(name: string, args: Record<string, unknown>): Promise<T> {
      const res = await mcp.callTool({ name, arguments: { response_format: 'detailed', ...args } });
      expect(res.isError, JSON.stringify(res.content)).to.not.equal(true);
      expect(JSON.parse((res.content as { text: string }[])[0]!.text)).to.deep.equal(res.structuredContent);
      return res.structuredContent as T;
    }

    async function callError(name: string, args: Record<string, unknown>, client = mcp): Promise<string> {
      const res = await client.callTool({ name, arguments: args });
      expect(res.isError).to.equal(true);
      return (res.content as { text: string }[])[0]!.text;
    }

    const summary = (company: string) =>
      call<Summary>('get_company_financial_summary', { company_id: ids[company] });
    const performance = (company: string, extra: Record<string, unknown> = {}) =>
      call<Performance>('get_company_performance', { company_id: ids[company], ...extra });
    const fig = (s: Summary, name: string) => s[name] as Figure;

    before(async () => {
      t = await dialect.open();
      fx = await buildFixture(t.db);
      server = await startTestServer(t.db);
      mcp = await mcpClient(server.url, fx.admin.pat);

      // Steady: a full year of clean monthly data, burning 50,000 a month.
      const steady = await addCompany('Steady State');
      ids.steady = steady;
      // 2024: flat at 100,000 a month, so the previous TTM is 1,200,000.
      for (const ym of months('2024-01', '2024-12')) await put(steady, 'revenue', ym, '100000.00');
      for (const [i, ym] of months('2025-01', '2025-12').entries()) {
        const revenue = 100000 + 5000 * (i + 1);
        await put(steady, 'revenue', ym, `${revenue}.00`);
        await put(steady, 'gross_profit', ym, (revenue * 0.6).toFixed(2));
        await put(steady, 'net_burn', ym, '50000.00');
        await put(steady, 'ebitda', ym, '-10000.00');
        await put(steady, 'expansion_arr', ym, '20000');
        await put(steady, 'contraction_arr', ym, '5000');
        await put(steady, 'churned_arr', ym, '10000');
      }
      await put(steady, 'arr', '2024-12', '1000000');
      await put(steady, 'arr', '2025-12', '1600000');
      await put(steady, 'cash_in_bank', '2025-12', '1200000.00');
      await put(steady, 'headcount', '2025-06', '20');
      await put(steady, 'headcount', '2025-12', '25');
      await put(steady, 'gross_margin', '2025-12', '0.60');
      await put(steady, 'net_income', '2025-12', '-20000.00');
      // Never counted: a deleted row, a budget row; an archived duplicate loses to the current row.
      await put(steady, 'revenue', '2025-12', '999999.00', { deleted_at: T });
      const budget = newId();
      await t.db('budgets').insert({
        id: budget,
        firm_id: fx.firmA.id,
        company_id: steady,
        name: 'Plan 2025',
        date: '2025-01-01',
        created_at: T,
      });
      await put(steady, 'revenue', '2025-12', '888888.00', { budget_id: budget });
      await put(steady, 'revenue', '2025-12', '1.00', { archived: true });
      await put(steady, 'cash_in_bank', '2026-03', '1.00', { deleted_at: T });

      // Flat: cash-generative, with a zero and a negative base.
      const flat = await addCompany('Flat Finance');
      ids.flat = flat;
      for (const ym of ['2025-10', '2025-11', '2025-12']) await put(flat, 'net_burn', ym, '-5000.00');
      await put(flat, 'cash_in_bank', '2025-12', '500000.00');
      await put(flat, 'revenue', '2025-11', '0');
      await put(flat, 'revenue', '2025-12', '1000.00');
      await put(flat, 'ebitda', '2025-09', '-2000.00');
      await put(flat, 'ebitda', '2025-12', '3000.00');

      // Mixed: monthly and quarterly revenue for the same months.
      const mixed = await addCompany('Mixed Cadence');
      ids.mixed = mixed;
      for (const ym of months('2025-01', '2025-12')) await put(mixed, 'revenue', ym, '10000.00');
      for (const ym of ['2025-03', '2025-06', '2025-09', '2025-12']) {
        await put(mixed, 'revenue', ym, '31000.00', { cadence: 'quarter' });
      }

      // Quarterly: revenue reported per quarter only.
      const quarterly = await addCompany('Quarterly Quartz');
      ids.quarterly = quarterly;
      for (const [ym, v] of [
        ['2024-03', '80000'],
        ['2024-06', '85000'],
        ['2024-09', '88000'],
        ['2024-12', '90000'],
        ['2025-03', '100000'],
        ['2025-06', '110000'],
        ['2025-09', '120000'],
        ['2025-12', '135000'],
      ] as const) {
        await put(quarterly, 'revenue', ym, v, { cadence: 'quarter' });
      }

      // Gappy: two months of revenue never reported.
      const gappy = await addCompany('Gappy Goods');
      ids.gappy = gappy;
      for (const ym of months('2025-01', '2025-12')) {
        if (ym !== '2025-04' && ym !== '2025-08') await put(gappy, 'revenue', ym, '1000.00');
        await put(gappy, 'net_burn', ym, '1000.00');
      }
      // ARR shrank over the year.
      await put(gappy, 'arr', '2024-12', '5000.00');
      await put(gappy, 'arr', '2025-12', '4000.00');

      // Multi: revenue and burn in EUR, cash in USD, EBITDA in GBP (no GBP rate): converted to USD.
      const multi = await addCompany('Multi Money', 'EUR');
      ids.multi = multi;
      for (const ym of months('2025-01', '2025-12'))
        await put(multi, 'revenue', ym, '1000.00', { currency: 'EUR' });
      for (const ym of ['2025-10', '2025-11', '2025-12'])
        await put(multi, 'net_burn', ym, '1000.00', { currency: 'EUR' });
      await put(multi, 'cash_in_bank', '2025-12', '50000.00');
      await put(multi, 'ebitda', '2025-12', '700.00', { currency: 'GBP' });
      await t.db('fx_rates').insert([
        {
          id: newId(),
          firm_id: fx.firmA.id,
          from_currency: 'EUR',
          to_currency: 'USD',
          date: '2024-06-01',
          rate: '1.1',
        },
        {
          id: newId(),
          firm_id: fx.firmA.id,
          from_currency: 'EUR',
          to_currency: 'USD',
          date: '2025-07-01',
          rate: '1.2',
        },
        {
          id: newId(),
          firm_id: fx.firmB.id,
          from_currency: 'GBP',
          to_currency: 'USD',
          date: '2025-01-01',
          rate: '1.3',
        },
      ]);

      ids.empty = await addCompany('Empty Edge');

      // Euro and pound companies, each reporting in one currency other than the firm's (USD); in Lyon so
      // the company searches below keep their counts. Firm A has EUR rates but no GBP rate.
      const euro = await addCompany('Euro Only', 'EUR');
      ids.euro = euro;
      for (const ym of months('2025-01', '2025-12'))
        await put(euro, 'revenue', ym, '1000.00', { currency: 'EUR' });
      await put(euro, 'cash_in_bank', '2025-12', '10000.00', { currency: 'EUR' });
      const pound = await addCompany('Pound Only', 'GBP');
      ids.pound = pound;
      await put(pound, 'cash_in_bank', '2025-12', '5000.00', { currency: 'GBP' });
      await t.db('companies').whereIn('id', [euro, pound]).update({ city: 'Lyon' });
    });
    after(async () => {
      await mcp?.close();
      await server?.close();
      await t?.drop();
    });

    describe('get_company_financial_summary', () => {
      it('computes TTM totals, margins, burn multiple, runway, rule of 40 and NRR of a steady company', async () => {
        const s = await summary('steady');
        expect(s.as_of_month).to.equal('2025-12');
        expect(s.currency).to.equal('USD');
        expect(s.fx_rates_used).to.deep.equal([]);
        const ttm = fig(s, 'ttm_revenue');
        expect(ttm).to.include({ value: '1590000.00', unit: 'money', currency: 'USD', reason: null });
        expect(ttm.period).to.deep.equal({ from: '2025-01', to: '2025-12' });
        expect(ttm.source.cadence).to.equal('month');
        expect(ttm.source.datum_ids).to.have.length(12);
        expect(ttm.source.dates[0]).to.equal('2025-01-31');
        expect(fig(s, 'ttm_net_burn')).to.include({ value: '600000.00', currency: 'USD' });
        expect(fig(s, 'gross_margin_ttm')).to.include({ value: '60.00', unit: 'percent', currency: null });
        expect(fig(s, 'net_new_arr_ttm')).to.include({ value: '600000.00', currency: 'USD' });
        expect(fig(s, 'net_new_arr_ttm').source.dates).to.deep.equal(['2024-12-31', '2025-12-31']);
        expect(fig(s, 'burn_multiple')).to.include({ value: '1.00', unit: 'multiple', reason: null });
        // 1,200,000 ÷ (150,000 ÷ 3) = 24 months.
        const runway = fig(s, 'runway_months');
        expect(runway).to.include({ value: '24.00', unit: 'months', reason: null });
        expect(runway.period).to.deep.equal({ from: '2025-10', to: '2025-12' });
        expect(runway.source.categories).to.have.members(['cash_in_bank', 'net_burn']);
        expect(runway.source.datum_ids).to.have.length(4);
        // YoY: TTM 1,590,000 over the previous TTM 1,200,000 = +32.50 %; the single month
        // 160,000 over 100,000 = +60 %. EBITDA margin −120,000 / 1,590,000 = −7.55 %.
        const yoy = fig(s, 'revenue_growth_yoy');
        expect(yoy).to.include({ value: '32.50', unit: 'percent', reason: null });
        expect(yoy.period).to.deep.equal({ from: '2024-01', to: '2025-12' });
        expect(yoy.source.datum_ids).to.have.length(24);
        expect(fig(s, 'revenue_growth_yoy_month')).to.include({ value: '60.00', reason: null });
        expect(fig(s, 'revenue_growth_yoy_month').source.dates).to.deep.equal(['2024-12-31', '2025-12-31']);
        expect(fig(s, 'ebitda_margin_ttm')).to.include({ value: '-7.55' });
        // 32.50 − 7.55.
        expect(fig(s, 'rule_of_40')).to.include({ value: '24.95', unit: 'percent' });
        // (1,000,000 + 240,000 − 60,000 − 120,000) / 1,000,000.
        expect(fig(s, 'nrr')).to.include({ value: '106.00', reason: null });
        expect(fig(s, 'nrr').source.datum_ids).to.have.length(37);
      });

      it('reports the latest value and date of each key category, ignoring deleted, budget and archived rows', async () => {
        const s = await summary('steady');
        expect(s.latest.revenue).to.include({ value: '160000.00', date: '2025-12-31', currency: 'USD' });
        expect(s.latest.cash_in_bank).to.include({ value: '1200000.00', date: '2025-12-31' });
        expect(s.latest.headcount).to.include({ value: '25', unit: 'number', currency: null });
        // Stored as the fraction 0.60; every analytics percentage is in percent.
        expect(s.latest.gross_margin).to.include({ value: '60.00', unit: 'percent', currency: null });
        expect(s.latest.net_income).to.include({ value: '-20000.00' });
        expect(s.latest.arr).to.include({ value: '1600000' });
      });

      it('gives a null runway and burn multiple with the reason when the company is not burning cash', async () => {
        const s = await summary('flat');
        const runway = fig(s, 'runway_months');
        expect(runway.value).to.equal(null);
        expect(runway.reason).to.match(/^company is not burning cash/);
        expect(runway.reason).to.contain('-5000.00');
        expect(fig(s, 'ttm_net_burn').value).to.equal(null);
        expect(fig(s, 'ttm_net_burn').reason).to.contain('2025-01');
      });

      it('never adds quarterly rows to monthly ones', async () => {
        const s = await summary('mixed');
        const ttm = fig(s, 'ttm_revenue');
        expect(ttm.value).to.equal('120000.00');
        expect(ttm.source.cadence).to.equal('month');
        expect(ttm.source.datum_ids).to.have.length(12);
        expect(s.latest.revenue).to.include({ value: '10000.00' });
        expect(s.latest.revenue.source.cadence).to.equal('month');
      });

      it('sums four quarters when a company reports revenue only quarterly', async () => {
        const s = await summary('quarterly');
        const ttm = fig(s, 'ttm_revenue');
        expect(ttm.value).to.equal('465000.00');
        expect(ttm.source.cadence).to.equal('quarter');
        expect(ttm.period).to.deep.equal({ from: '2025-01', to: '2025-12' });
        expect(s.latest.revenue.source.cadence).to.equal('quarter');
        expect(s.latest.revenue.period).to.deep.equal({ from: '2025-10', to: '2025-12' });
        // TTM 465,000 over the previous TTM 80,000 + 85,000 + 88,000 + 90,000 = 343,000: +35.57 %.
        expect(fig(s, 'revenue_growth_yoy')).to.include({ value: '35.57' });
        expect(fig(s, 'revenue_growth_yoy').source.cadence).to.equal('quarter');
        // The latest quarter 135,000 over 90,000 a year earlier.
        expect(fig(s, 'revenue_growth_yoy_month')).to.include({ value: '50.00' });
      });

      it('makes TTM null with the missing months named when a month is missing', async () => {
        const s = await summary('gappy');
        const ttm = fig(s, 'ttm_revenue');
        expect(ttm.value).to.equal(null);
        expect(ttm.reason).to.equal(
          'revenue is missing for 2025-04, 2025-08; a 12-month total needs every month',
        );
        expect(ttm.source.datum_ids).to.have.length(10);
      });

      it('gives a null burn multiple when net new ARR is not positive, and a null NRR without the ARR components', async () => {
        const s = await summary('gappy');
        expect(fig(s, 'ttm_net_burn').value).to.equal('12000.00');
        expect(fig(s, 'net_new_arr_ttm').value).to.equal('-1000.00');
        const multiple = fig(s, 'burn_multiple');
        expect(multiple.value).to.equal(null);
        expect(multiple.reason).to.equal('net new ARR is -1000.00; a burn multiple needs ARR to grow');
        const nrr = fig(s, 'nrr');
        expect(nrr.value).to.equal(null);
        expect(nrr.reason).to.equal('expansion ARR: no monthly expansion_arr data for 2025-01 to 2025-12');
        expect(fig(s, 'rule_of_40').reason).to.match(
          /^revenue growth \(YoY\): TTM revenue to 2025-12: revenue is missing for 2025-04, 2025-08/,
        );
      });

      it('converts several currencies into the firm currency with the latest rate on or before each date', async () => {
        const s = await summary('multi');
        expect(s.currency).to.equal('USD');
        expect(s.currency_note).to.contain('EUR, GBP, USD');
        // 6 × 1,000 × 1.1 + 6 × 1,000 × 1.2.
        expect(fig(s, 'ttm_revenue')).to.include({ value: '13800.00', currency: 'USD' });
        expect(s.latest.revenue).to.include({ value: '1200.00', currency: 'USD' });
        expect(s.latest.cash_in_bank).to.include({ value: '50000.00', currency: 'USD' });
        // 50,000 ÷ 1,200 a month.
        expect(fig(s, 'runway_months')).to.include({ value: '41.67' });
        expect(s.fx_rates_used.map((r) => [r.from_currency, r.date, r.rate])).to.deep.equal([
          ['EUR', '2024-06-01', '1.1'],
          ['EUR', '2025-07-01', '1.2'],
        ]);
      });

      it('makes a figure null with the reason when a needed FX rate is missing (other firms rates never count)', async () => {
        const s = await summary('multi');
        expect(s.latest.ebitda.value).to.equal(null);
        expect(s.latest.ebitda.reason).to.match(/^no GBP→USD FX rate on or before 2025-12-31/);
        expect(s.latest.ebitda.source.datum_ids).to.have.length(1);
      });

      it("gives every money figure in the firm's currency too, with the rate and its date", async () => {
        const e = await summary('euro');
        expect(e.currency).to.equal('EUR');
        // 12 × 1,000 EUR at the EUR→USD rate of 2025-07-01 (1.2), the latest on or before 2025-12-31.
        expect(fig(e, 'ttm_revenue')).to.deep.include({
          value: '12000.00',
          currency: 'EUR',
          converted: {
            value: '14400.00',
            currency: 'USD',
            fx_rate: 1.2,
            fx_rate_date: '2025-07-01',
            reason: null,
          },
        });
        expect(e.latest.cash_in_bank.converted).to.deep.include({ value: '12000.00', fx_rate: 1.2 });
        expect(e.latest.revenue.converted).to.deep.include({ value: '1200.00', fx_rate_date: '2025-07-01' });
        // Not money: nothing to convert.
        expect(fig(e, 'revenue_growth_yoy_month')).to.include({ converted: null });

        const usd = await summary('steady');
        expect(fig(usd, 'ttm_revenue').converted).to.deep.equal({
          value: '1590000.00',
          currency: 'USD',
          fx_rate: 1,
          fx_rate_date: null,
          reason: null,
        });

        const gbp = await summary('pound');
        expect(gbp.latest.cash_in_bank).to.deep.include({ value: '5000.00', currency: 'GBP' });
        expect(gbp.latest.cash_in_bank.converted).to.deep.include({ value: null, fx_rate: null });
        expect((gbp.latest.cash_in_bank.converted as { reason: string }).reason).to.match(
          /^no GBP→USD FX rate on or before 2025-12-31/,
        );

        const p = await performance('euro');
        expect(p.series.revenue!.latest.converted).to.deep.include({ value: '1200.00', currency: 'USD' });
        expect(p.series.revenue!.mom.converted).to.equal(null);
        // Each monthly point too: 1,000 EUR at 1.2 (rate of 2025-07-01) from July, at 1.1 before.
        expect(p.series.revenue!.points[5]).to.include({
          month: '2025-06',
          value: '1000.00',
          converted_value: '1100.00',
        });
        expect(p.series.revenue!.points[6]).to.include({
          month: '2025-07',
          value: '1000.00',
          converted_value: '1200.00',
        });
        expect(p.series.revenue!.points[0]).to.include({ converted_value: '1100.00' });
      });

      it('answers a company without data with null figures and reasons', async () => {
        const s = await summary('empty');
        expect(s.as_of_month).to.equal(null);
        expect(fig(s, 'ttm_revenue')).to.include({
          value: null,
          reason: 'the company has no data for these categories',
        });
      });
    });

    describe('get_company_performance', () => {
      it('states the window ending at the latest month and gives latest, MoM, QoQ, YoY and CMGR', async () => {
        const p = await performance('steady');
        expect(p.window).to.deep.equal({ from: '2025-01', to: '2025-12' });
        const revenue = p.series.revenue!;
        expect(revenue.cadence).to.equal('month');
        expect(revenue.currency).to.equal('USD');
        expect(revenue.points).to.have.length(12);
        expect(revenue.points[0]).to.include({ month: '2025-01', value: '105000.00' });
        expect(revenue.latest).to.include({ value: '160000.00', date: '2025-12-31', currency: 'USD' });
        // 5,000 / 155,000; 15,000 / 145,000; 60,000 / 100,000 (the base lies before the window).
        expect(revenue.mom).to.include({ value: '3.23', unit: 'percent', currency: null });
        expect(revenue.mom.period).to.deep.equal({ from: '2025-11', to: '2025-12' });
        expect(revenue.qoq).to.include({ value: '10.34' });
        // YoY of a flow: TTM 1,590,000 over the previous TTM 1,200,000; the single month 160,000 / 100,000.
        expect(revenue.yoy).to.include({ value: '32.50' });
        expect(revenue.yoy.source.dates).to.have.length(24);
        expect(revenue.yoy_month).to.include({ value: '60.00' });
        expect(revenue.yoy_month.source.dates).to.deep.equal(['2024-12-31', '2025-12-31']);
        // 12 months span 12 intervals: from 100,000 in 2024-12 to 160,000 in 2025-12 (1.6^(1/12) − 1 = 3.99 %).
        expect(revenue.cmgr.value).to.equal('3.99');
        expect(revenue.cmgr.value).to.equal((((160000 / 100000) ** (1 / 12) - 1) * 100).toFixed(2));
        expect(revenue.cmgr.period).to.deep.equal({ from: '2024-12', to: '2025-12' });
      });

      it('shows missing months as null gaps, and growth without the exact base month as null with the reason', async () => {
        const p = await performance('steady');
        const headcount = p.series.headcount!;
        expect(headcount.cadence).to.equal('point_in_time');
        expect(headcount.points.filter((x) => x.value !== null).map((x) => x.month)).to.deep.equal([
          '2025-06',
          '2025-12',
        ]);
        expect(headcount.points.find((x) => x.month === '2025-07')!.value).to.equal(null);
        expect(headcount.mom.value).to.equal(null);
        expect(headcount.mom.reason).to.match(/^no value 1 month earlier \(2025-11\)/);
        expect(headcount.yoy.reason).to.match(/^no value 12 months earlier \(2024-12\)/);
        expect(headcount.cmgr.value).to.equal(null);
        expect(headcount.cmgr.reason).to.match(/^no headcount value 12 months before the latest \(2024-12\)/);
        // Over 6 months, 20 in 2025-06 to 25 in 2025-12: 6 intervals.
        const six = (await performance('steady', { months: 6 })).series.headcount!;
        expect(six.cmgr.value).to.equal((((25 / 20) ** (1 / 6) - 1) * 100).toFixed(2));

        const gappy = (await performance('gappy')).series.revenue!;
        expect(gappy.points.map((x) => x.value)).to.deep.equal(
          months('2025-01', '2025-12').map((ym) => (ym === '2025-04' || ym === '2025-08' ? null : '1000.00')),
        );
        expect(gappy.yoy.reason).to.match(/^TTM revenue to 2025-12: revenue is missing for 2025-04, 2025-08/);
        expect(gappy.yoy_month.reason).to.match(/^no value 12 months earlier/);
      });

      it('gives growth from a zero or a negative base as null with the reason', async () => {
        const p = await performance('flat');
        expect(p.series.revenue!.mom.value).to.equal(null);
        expect(p.series.revenue!.mom.reason).to.match(/^base value is zero/);
        expect(p.series.ebitda!.qoq.value).to.equal(null);
        expect(p.series.ebitda!.qoq.reason).to.match(/^base value is negative \(-2000\.00/);
        const three = await performance('flat', { months: 3 });
        expect(three.series.ebitda!.cmgr.reason).to.match(/^base value is negative \(-2000\.00/);
        expect(p.series.net_burn!.latest.value).to.equal('-5000.00');
      });

      it('builds each series from one cadence: monthly rows win, quarterly rows only when there are no monthly ones', async () => {
        const mixed = (await performance('mixed')).series.revenue!;
        expect(mixed.cadence).to.equal('month');
        expect(mixed.latest.value).to.equal('10000.00');
        expect(mixed.points.every((x) => x.value === '10000.00')).to.equal(true);
        expect(mixed.mom.value).to.equal('0.00');

        const quarterly = (await performance('quarterly')).series.revenue!;
        expect(quarterly.cadence).to.equal('quarter');
        expect(quarterly.points.map((x) => [x.month, x.value])).to.deep.equal([
          ['2025-03', '100000'],
          ['2025-06', '110000'],
          ['2025-09', '120000'],
          ['2025-12', '135000'],
        ]);
        expect(quarterly.mom.value).to.equal(null);
        expect(quarterly.mom.reason).to.match(
          /reported per quarter only; month-on-month growth needs monthly values/,
        );
        expect(quarterly.qoq.value).to.equal('12.50');
        // TTM 465,000 over 343,000; the latest quarter over the same quarter a year earlier.
        expect(quarterly.yoy.value).to.equal('35.57');
        expect(quarterly.yoy_month.value).to.equal('50.00');
        expect(quarterly.cmgr.value).to.equal((((135000 / 90000) ** (1 / 12) - 1) * 100).toFixed(2));
      });

      it('converts money series into the firm currency and keeps non-money series without a currency', async () => {
        const p = await performance('multi');
        expect(p.currency).to.equal('USD');
        const revenue = p.series.revenue!;
        expect(revenue.currency).to.equal('USD');
        expect(revenue.points[5]).to.include({ month: '2025-06', value: '1100.00' });
        expect(revenue.points[6]).to.include({ month: '2025-07', value: '1200.00' });
        expect(revenue.mom.value).to.equal('0.00');
        expect(revenue.yoy.reason).to.match(
          /^TTM revenue to 2024-12: no monthly revenue data for 2024-01 to 2024-12/,
        );
        expect(revenue.yoy_month.reason).to.match(/^no value 12 months earlier/);
        expect(p.series.headcount!.currency).to.equal(null);
        expect(p.series.ebitda!.latest.value).to.equal(null);
        expect(p.series.ebitda!.latest.reason).to.match(/^no GBP→USD FX rate/);
      });

      it('honours the months window and rejects months outside 1 to 120', async () => {
        const p = await performance('steady', { months: 3 });
        expect(p.window).to.deep.equal({ from: '2025-10', to: '2025-12' });
        expect(p.series.revenue!.points).to.have.length(3);
        // The trailing figures do not depend on the window.
        expect(p.series.revenue!.yoy.value).to.equal('32.50');
        expect(p.series.revenue!.yoy_month.value).to.equal('60.00');
        expect(await callError('get_company_performance', { company_id: ids.steady, months: 0 })).to.match(
          /months/,
        );
        expect(await callError('get_company_performance', { company_id: ids.steady, months: 121 })).to.match(
          /months/,
        );
      });

      it('answers an unknown or invisible company like an unknown id, pointing at list_companies', async () => {
        for (const tool of [
          'get_company_performance',
          'get_company_financial_summary',
          'get_company_notes_summary',
        ]) {
          expect(await callError(tool, { company_id: 'nope' })).to.match(
            /no company with id nope.*list_companies/,
          );
          expect(await callError(tool, { company_id: fx.companies.zeta.id })).to.match(/list_companies/);
        }
        const restricted = await mcpClient(server.url, fx.restricted.pat);
        try {
          expect(await callError('get_company_performance', { company_id: ids.steady }, restricted)).to.match(
            /no company with id/,
          );
        } finally {
          await restricted.close();
        }
        expect(await callError('get_company_performance', {})).to.match(/company_id/);
      });
    });

    describe('get_company_notes_summary', () => {
      let longNote: string;
      before(async () => {
        const add = (companyId: string, author: string, at: string, note: string) =>
          t.db('notes').insert({
            id: newId(),
            firm_id: fx.firmA.id,
            company_id: companyId,
            author_id: author,
            note,
            created_at: at,
          });
        const acme = fx.companies.acme.id;
        longNote = 'x'.repeat(7321);
        await add(acme, fx.editor.user.id, '2025-01-10T09:00:00.000Z', 'first');
        await add(acme, fx.admin.user.id, '2025-02-10T09:00:00.000Z', 'second');
        await add(acme, fx.editor.user.id, '2025-03-10T09:00:00.000Z', 'third');
        await add(acme, fx.viewer.user.id, '2025-04-10T09:00:00.000Z', 'fourth');
        await add(acme, fx.admin.user.id, '2025-05-10T09:00:00.000Z', 'fifth');
        await add(acme, fx.editor.user.id, '2025-06-10T09:00:00.000Z', longNote);
        await add(fx.companies.beta.id, fx.admin.user.id, '2026-01-01T00:00:00.000Z', 'elsewhere');
      });

      it('counts notes and authors, most first, with the first and last dates', async () => {
        const s = await call<{
          total_count: number;
          first_note_at: string;
          last_note_at: string;
          authors: { name: string; email: string; count: number }[];
          recent_notes: unknown[];
        }>('get_company_notes_summary', { company_id: fx.companies.acme.id });
        expect(s.total_count).to.equal(6);
        expect(s.first_note_at).to.equal('2025-01-10T09:00:00.000Z');
        expect(s.last_note_at).to.equal('2025-06-10T09:00:00.000Z');
        expect(s.authors.map((a) => [a.email, a.count])).to.deep.equal([
          ['editor@alpha.test', 3],
          ['admin@alpha.test', 2],
          ['viewer@alpha.test', 1],
        ]);
        expect(s.authors[0]!.name).to.equal('editor Tester');
        expect(s.recent_notes).to.have.length(5);
      });

      it('returns the newest notes first, cutting long texts at 2,000 characters with a marker', async () => {
        const s = await call<{
          recent_notes: { note: string; truncated: boolean; author: string; created_at: string }[];
        }>('get_company_notes_summary', { company_id: fx.companies.acme.id, recent_notes_limit: 2 });
        expect(s.recent_notes.map((n) => n.created_at)).to.deep.equal([
          '2025-06-10T09:00:00.000Z',
          '2025-05-10T09:00:00.000Z',
        ]);
        const [long, short] = s.recent_notes as [(typeof s.recent_notes)[0], (typeof s.recent_notes)[0]];
        expect(long.truncated).to.equal(true);
        expect(long.note).to.equal(
          `${'x'.repeat(2000)}… [truncated: 5,321 more characters; call list_notes with company_id=${fx.companies.acme.id} to read the full note]`,
        );
        expect(short).to.include({ note: 'fifth', truncated: false, author: 'admin Tester' });
      });

      it('accepts 0 to 100 recent notes and rejects more', async () => {
        const none = await call<{ recent_notes: unknown[]; total_count: number }>(
          'get_company_notes_summary',
          {
            company_id: fx.companies.acme.id,
            recent_notes_limit: 0,
          },
        );
        expect(none.recent_notes).to.deep.equal([]);
        expect(none.total_count).to.equal(6);
        expect(
          await callError('get_company_notes_summary', {
            company_id: fx.companies.acme.id,
            recent_notes_limit: 101,
          }),
        ).to.match(/recent_notes_limit/);
      });

      it('answers a company without notes with zero and nulls', async () => {
        const s = await call<{ total_count: number; first_note_at: null; authors: unknown[] }>(
          'get_company_notes_summary',
          { company_id: fx.companies.gamma.id },
        );
        expect(s).to.include({ total_count: 0, first_note_at: null, last_note_at: null });
        expect(s.authors).to.deep.equal([]);
      });
    });

    describe('search_companies', () => {
      const names = (r: { results: { name: string }[] }) => r.results.map((c) => c.name);
      type Page = { count: number; has_more: boolean; results: { name: string }[] };

      it('filters by case-insensitive substrings of name, sector and city over every visible company', async () => {
        expect(names(await call<Page>('search_companies', { name_contains: 'GRID' }))).to.deep.equal([
          'Gamma Grid',
        ]);
        expect(names(await call<Page>('search_companies', { sector: 'heal' }))).to.deep.equal(['Beta Bio']);
        expect(names(await call<Page>('search_companies', { city: 'BERL' }))).to.deep.equal(['Gamma Grid']);
        expect(names(await call<Page>('search_companies', { sector: 'saas', city: 'boston' }))).to.deep.equal(
          ['Acme Analytics'],
        );
        expect(
          names(await call<Page>('search_companies', { name_contains: 'a', city: 'london' })),
        ).to.deep.equal(['Beta Bio']);
        const none = await call<Page>('search_companies', { name_contains: '%' });
        expect(none.count).to.equal(0);
      });

      it('returns the Company list shape of the reference, paged', async () => {
        const first = await call<Page>('search_companies', { city: 'paris', per_page: 2 });
        expect(first.count).to.equal(7);
        expect(first.has_more).to.equal(true);
        expect(names(first)).to.deep.equal(['Empty Edge', 'Flat Finance']);
        assertReference('main', 'Company', ...first.results);
        const last = await call<Page>('search_companies', { city: 'paris', per_page: 2, page: 4 });
        expect(names(last)).to.deep.equal(['Steady State']);
        expect(last.has_more).to.equal(false);
        expect(await callError('search_companies', { city: 'paris', per_page: 2, page: 5 })).to.match(
          /past the last page/,
        );
      });

      it('never shows companies outside the caller access', async () => {
        const restricted = await mcpClient(server.url, fx.restricted.pat);
        const other = await mcpClient(server.url, fx.other.pat);
        try {
          const r = await restricted.callTool({ name: 'search_companies', arguments: {} });
          expect(names(r.structuredContent as Page)).to.deep.equal(['Acme Analytics']);
          const o = await other.callTool({ name: 'search_companies', arguments: { name_contains: 'a' } });
          expect(names(o.structuredContent as Page)).to.deep.equal(['Zeta Zero']);
        } finally {
          await restricted.close();
          await other.close();
        }
      });
    });
  });
}
