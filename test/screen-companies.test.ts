import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { expect } from 'chai';
import { STANDARD_CATEGORIES, standardCategoryId } from '../core/categories.ts';
import { newId } from '../db/ids.ts';
import type { RunningServer } from '../server/http.ts';
import { announceMetricChange, insertDatum } from './helpers/datums.ts';
import { dialects, type TestDb } from './helpers/db.ts';
import { buildFixture, type Fixture } from './helpers/fixture.ts';
import { mcpClient } from './helpers/mcp.ts';
import { api, startTestServer } from './helpers/server.ts';

const T = '2026-01-05T00:00:00.000Z';
const stocks = new Set(STANDARD_CATEGORIES.filter((c) => c.pointInTime).map((c) => c.name));

interface Row {
  company_id: string;
  name: string;
  status: string;
  sector: string;
  reporting_currency: string;
  last_reported_month: string | null;
  stale: boolean;
  null_reasons?: Record<string, string>;
  growth_currency?: string | null;
  budget_period?: string | null;
  [figure: string]: unknown;
}
interface Stats {
  values: number;
  sum: string | null;
  median: string | null;
  min: string | null;
  max: string | null;
}
interface Group {
  key: string | null;
  fund_name?: string;
  count: number;
  stale_count: number;
  stats: Record<string, Stats>;
}
interface Screen {
  count: number;
  page: number;
  per_page: number;
  has_more: boolean;
  firm_latest_month: string | null;
  currency: string;
  columns: string[];
  results: Row[];
  groups?: Group[];
  total?: Group;
}

const BASE = [
  'cash_in_bank',
  'arr',
  'revenue_ttm',
  'revenue_growth_yoy',
  'net_burn_avg_3m',
  'runway_months',
  'burn_multiple',
  'gross_margin_ttm',
  'headcount',
];

function monthEnd(ym: string): string {
  const [y, m] = ym.split('-').map(Number) as [number, number];
  return `${ym}-${String(new Date(Date.UTC(y, m, 0)).getUTCDate()).padStart(2, '0')}`;
}

function monthsBack(to: string, n: number): string[] {
  const [y, m] = to.split('-').map(Number) as [number, number];
  const out: string[] = [];
  for (let k = n - 1; k >= 0; k--) {
    const d = new Date(Date.UTC(y, m - 1 - k, 1));
    out.push(`${d.getUTCFullYear()}-${String(d.getUTCMonth() + 1).padStart(2, '0')}`);
  }
  return out;
}

interface Spec {
  key: string;
  name: string;
  status: string;
  sector: string;
  currency: string;
  /** Last month with data. */
  last: string;
  cash: number;
  /** Monthly net burn of the 12 months up to `last`, oldest first. */
  burn: number[];
  revenue: number;
  inFundB?: boolean;
}

const specs: Spec[] = [
  {
    key: 'a',
    name: 'Aurora',
    status: 'active',
    sector: 'SaaS',
    currency: 'USD',
    last: '2025-12',
    cash: 600000,
    burn: Array(12).fill(100000),
    revenue: 50000,
    inFundB: true,
  },
  {
    key: 'b',
    name: 'Borealis',
    status: 'active',
    sector: 'SaaS',
    currency: 'EUR',
    last: '2025-12',
    cash: 1000000,
    burn: [...Array(9).fill(90000), 100000, 120000, 140000],
    revenue: 80000,
    inFundB: true,
  },
  {
    key: 'c',
    name: 'Cirrus',
    status: 'active',
    sector: 'Health',
    currency: 'USD',
    last: '2025-11',
    cash: 300000,
    burn: Array(12).fill(60000),
    revenue: 10000,
  },
  {
    key: 'd',
    name: 'Doldrums',
    status: 'active',
    sector: 'Health',
    currency: 'USD',
    last: '2025-09',
    cash: 2000000,
    burn: Array(12).fill(50000),
    revenue: 20000,
  },
  {
    key: 'e',
    name: 'Eddy',
    status: 'active',
    sector: 'Climate',
    currency: 'EUR',
    last: '2025-12',
    cash: 450000,
    burn: Array(12).fill(30000),
    revenue: 5000,
  },
  {
    key: 'f',
    name: 'Foehn',
    status: 'active',
    sector: 'Climate',
    currency: 'USD',
    last: '2025-06',
    cash: 100000,
    burn: Array(12).fill(40000),
    revenue: 1000,
  },
  {
    key: 'g',
    name: 'Gale',
    status: 'active',
    sector: 'SaaS',
    currency: 'USD',
    last: '2025-12',
    cash: 900000,
    burn: Array(12).fill(-20000),
    revenue: 200000,
  },
  {
    key: 'h',
    name: 'Haze',
    status: 'active',
    sector: 'SaaS',
    currency: 'USD',
    last: '2025-12',
    cash: 5000000,
    burn: Array(12).fill(70000),
    revenue: 90000,
  },
  {
    key: 'w',
    name: 'Wreck',
    status: 'written-off',
    sector: 'SaaS',
    currency: 'USD',
    last: '2023-06',
    cash: 10000,
    burn: Array(12).fill(80000),
    revenue: 100,
  },
  {
    key: 'x',
    name: 'Exit Ltd',
    status: 'exited',
    sector: 'Health',
    currency: 'EUR',
    last: '2025-12',
    cash: 50000,
    burn: Array(12).fill(25000),
    revenue: 3000,
  },
];

/** Runway from the raw rows: cash at the last month / (net burn of its last 3 months / 3), null unless burning. */
function rawRunway(s: Spec): number | null {
  const burn3 = s.burn.slice(-3).reduce((a, b) => a + b, 0);
  return burn3 > 0 ? (s.cash * 3) / burn3 : null;
}

for (const dialect of dialects) {
  describe(`screen_companies (${dialect.name}) @db`, () => {
    let t: TestDb;
    let fx: Fixture;
    let server: RunningServer;
    let mcp: Client;
    let fundB: string;
    const ids: Record<string, string> = {};

    async function put(
      companyId: string,
      category: string,
      ym: string,
      value: string,
      currency: string | null,
    ) {
      await insertDatum(t.db, {
        firmId: fx.firmA.id,
        companyId,
        category,
        value,
        currency,
        date: monthEnd(ym),
        cadence: stocks.has(category) ? 'point_in_time' : 'month',
      });
      await announceMetricChange(t.db, fx.firmA.id, companyId);
    }

    async function call<R>(
      args: Record<string, unknown>,
      client = mcp,
      name = 'screen_companies',
    ): Promise<R> {
      const res = await client.callTool({ name, arguments: { response_format: 'detailed', ...args } });
      expect(res.isError, JSON.stringify(res.content)).to.not.equal(true);
      return res.structuredContent as R;
    }

    async function callError(args: Record<string, unknown>): Promise<string> {
      const res = await mcp.callTool({ name: 'screen_companies', arguments: args });
      expect(res.isError).to.equal(true);
      return (res.content as { text: string }[])[0]!.text;
    }

    const fig = (row: Row, name: string) => row[name] as string | null;

    before(async () => {
      t = await dialect.open();
      fx = await buildFixture(t.db);
      fundB = newId();
      await t.db('funds').insert({
        id: fundB,
        firm_id: fx.firmA.id,
        name: 'Alpha Fund II',
        size: '50000000.00',
        vintage: 2023,
        currency: 'USD',
        created_at: T,
      });
      await t.db('fx_rates').insert([
        {
          id: newId(),
          firm_id: fx.firmA.id,
          from_currency: 'EUR',
          to_currency: 'USD',
          date: '2025-01-01',
          rate: '1.10',
        },
        {
          id: newId(),
          firm_id: fx.firmA.id,
          from_currency: 'EUR',
          to_currency: 'USD',
          date: '2025-12-15',
          rate: '1.20',
        },
        {
          id: newId(),
          firm_id: fx.firmA.id,
          from_currency: 'EUR',
          to_currency: 'USD',
          date: '2026-01-15',
          rate: '9.99',
        },
      ]);
      for (const s of specs) {
        const id = newId();
        ids[s.key] = id;
        await fx.repos.companies.create(
          {
            id,
            firm_id: fx.firmA.id,
            name: s.name,
            slug: s.name.toLowerCase().replace(/\W+/g, '-'),
            description: '',
            sector: s.sector,
            firm_sector: 'Software',
            city: 'Paris',
            status: s.status,
            unique_ref: '',
            website: '',
            logo_url: 'https://logos.example/x.png',
            fiscal_year_end: '12-31',
            reporting_currency: s.currency,
            investment_lead_id: null,
            created_at: T,
            updated_at: T,
          },
          s.inFundB ? [fundB] : [fx.fundA],
        );
        // 24 months of revenue so both TTM and year-on-year figures exist.
        for (const ym of monthsBack(s.last, 24)) await put(id, 'revenue', ym, `${s.revenue}.00`, s.currency);
        for (const [i, ym] of monthsBack(s.last, 12).entries()) {
          await put(id, 'net_burn', ym, `${s.burn[i]}.00`, s.currency);
        }
        await put(id, 'cash_in_bank', s.last, `${s.cash}.00`, s.currency);
        await put(id, 'headcount', s.last, '12', null);
      }
      // A budget row in the future never moves the firm's latest month or a company's freshness.
      const budget = newId();
      await t.db('budgets').insert({
        id: budget,
        firm_id: fx.firmA.id,
        company_id: ids.f,
        name: 'Plan',
        date: '2026-01-01',
        created_at: T,
      });
      await t.db('metric_data').insert({
        id: newId(),
        firm_id: fx.firmA.id,
        company_id: ids.f,
        category_id: standardCategoryId('cash_in_bank'),
        cadence: 'point_in_time',
        date: '2026-06-30',
        value: '1.00',
        currency: 'USD',
        budget_id: budget,
        detailed_source: '',
        archived: false,
        deleted_at: null,
        created_at: T,
        updated_at: T,
      });
      // ARR a year apart: Aurora 1,000,000 → 1,250,000 USD (+25 %); Borealis 1,000,000 → 1,100,000 EUR (+10 %),
      // in USD 1,000,000 at 1.00 → 1,320,000 at 1.20 (+32 %): the ranking turns over in the firm's currency.
      await t.db('fx_rates').insert({
        id: newId(),
        firm_id: fx.firmA.id,
        from_currency: 'EUR',
        to_currency: 'USD',
        date: '2023-06-01',
        rate: '1.00',
      });
      await put(ids.a!, 'arr', '2024-12', '1000000.00', 'USD');
      await put(ids.a!, 'arr', '2025-12', '1250000.00', 'USD');
      await put(ids.b!, 'arr', '2024-12', '1000000.00', 'EUR');
      await put(ids.b!, 'arr', '2025-12', '1100000.00', 'EUR');
      await put(ids.a!, 'headcount', '2024-12', '10', null);
      // Aurora is in both funds.
      await t.db('company_funds').insert({ company_id: ids.a!, fund_id: fx.fundA });
      // Aurora's latest budget: revenue 40,000 for 2025-11, 62,500 for 2025-12, and a month not yet reported.
      const older = newId();
      const plan = newId();
      await t.db('budgets').insert([
        {
          id: older,
          firm_id: fx.firmA.id,
          company_id: ids.a!,
          name: 'Old plan',
          date: '2024-01-01',
          created_at: T,
        },
        {
          id: plan,
          firm_id: fx.firmA.id,
          company_id: ids.a!,
          name: 'Plan 2025',
          date: '2025-01-01',
          created_at: T,
        },
      ]);
      const budgetRow = (budgetId: string, ym: string, value: string) => ({
        id: newId(),
        firm_id: fx.firmA.id,
        company_id: ids.a!,
        category_id: standardCategoryId('revenue'),
        cadence: 'month',
        date: monthEnd(ym),
        value,
        currency: 'USD',
        budget_id: budgetId,
        detailed_source: '',
        archived: false,
        deleted_at: null,
        created_at: T,
        updated_at: T,
      });
      await t
        .db('metric_data')
        .insert([
          budgetRow(older, '2025-12', '1.00'),
          budgetRow(plan, '2025-11', '40000.00'),
          budgetRow(plan, '2025-12', '62500.00'),
          budgetRow(plan, '2026-01', '99999.00'),
        ]);
      // Aurora's cap table: a round at 9,000,000 pre-money + 1,000,000 with 1,000,000 fully diluted shares;
      // Alpha Fund II holds 100,000 shares bought for 1,000,000 USD, priced 20 USD since.
      const cash = (prefix: string, value: string) => ({
        [`${prefix}_value`]: value,
        [`${prefix}_currency`]: 'USD',
        [`${prefix}_fx_rate`]: null,
        [`${prefix}_is_custom_rate`]: false,
      });
      const round = newId();
      await t.db('financings').insert({
        id: round,
        firm_id: fx.firmA.id,
        company_id: ids.a!,
        name: 'Series A',
        closing_date: '2024-01-01',
        round_size_converted_value: null,
        fully_diluted_shares: '1000000',
        is_crypto: false,
        created_at: T,
        ...cash('pre_money', '9000000'),
        ...cash('round_size', '1000000'),
      });
      await t.db('share_classes').insert({
        id: newId(),
        firm_id: fx.firmA.id,
        company_id: ids.a!,
        financing_id: round,
        purchase_type: 'primary',
        type: 'preferred',
        name: 'A',
        include_in_fair_value: true,
        created_at: T,
        ...cash('price_per_share', '20'),
      });
      await t.db('securities').insert({
        id: newId(),
        firm_id: fx.firmA.id,
        company_id: ids.a!,
        fund_id: fundB,
        financing_id: null,
        share_class_id: null,
        type: 'certificate',
        issue_date: '2024-01-01',
        details: JSON.stringify({
          investment_amount: { value: '1000000', currency: 'USD', fx_rate: null, is_custom_rate: false },
          shares: '100000',
        }),
        created_at: T,
      });
      server = await startTestServer(t.db);
      mcp = await mcpClient(server.url, fx.admin.pat);
    });

    after(async () => {
      await mcp?.close();
      await server?.close();
      await t?.drop();
    });

    it('answers "the five active companies with the shortest runway" in one call, matching the raw metrics', async () => {
      const res = await call<Screen>({ status: 'active', sort_by: 'runway_months', per_page: 5 });
      expect(res.columns).to.deep.equal(['arr', 'arr_growth_yoy', 'revenue_ttm', 'runway_months']);
      const active = specs.filter((s) => s.status === 'active');
      const expected = active
        .map((s) => ({ name: s.name, runway: rawRunway(s) }))
        .filter((r) => r.runway !== null)
        .sort((a, b) => a.runway! - b.runway!)
        .slice(0, 5);
      expect(res.results.map((r) => r.name)).to.deep.equal(expected.map((r) => r.name));
      res.results.forEach((row, i) => {
        expect(row.status).to.equal('active');
        expect(Number(fig(row, 'runway_months'))).to.be.closeTo(expected[i]!.runway!, 0.005);
      });
      // 8 active companies of this test plus the fixture's 3 active companies without data.
      expect(res.count).to.equal(active.length + 3);
      expect(res.has_more).to.equal(true);
      expect(res.results.map((r) => r.name)).to.not.include('Wreck');
    });

    it('puts rows whose sort figure is null last, in both directions', async () => {
      for (const sort_by of ['runway_months', '-runway_months']) {
        const res = await call<Screen>({ sort_by, per_page: 100 });
        const values = res.results.map((r) => fig(r, 'runway_months'));
        const firstNull = values.indexOf(null);
        expect(firstNull).to.be.greaterThan(0);
        expect(values.slice(firstNull).every((v) => v === null)).to.equal(true);
        const numbers = values.slice(0, firstNull).map(Number);
        const sorted = [...numbers].sort((a, b) => (sort_by.startsWith('-') ? b - a : a - b));
        expect(numbers).to.deep.equal(sorted);
      }
      const gale = (await call<Screen>({ per_page: 100 })).results.find((r) => r.name === 'Gale')!;
      expect(gale.runway_months).to.equal(null);
      expect(gale.null_reasons!.runway_months).to.match(/not burning/);
    });

    it('gives every figure the same value as get_company_financial_summary, money in the firm currency', async () => {
      const res = await call<Screen>({ per_page: 100, columns: BASE });
      type F = { value: string | null; converted: { value: string | null } | null };
      const latest = (s: Record<string, unknown>, k: string) => (s.latest as Record<string, F>)[k]!;
      const pairs: [string, (s: Record<string, unknown>) => F][] = [
        ['cash_in_bank', (s) => latest(s, 'cash_in_bank')],
        ['arr', (s) => latest(s, 'arr')],
        ['headcount', (s) => latest(s, 'headcount')],
        ['revenue_ttm', (s) => s.ttm_revenue as F],
        ['revenue_growth_yoy', (s) => s.revenue_growth_yoy as F],
        ['net_burn_avg_3m', (s) => s.net_burn_avg_3m as F],
        ['runway_months', (s) => s.runway_months as F],
        ['burn_multiple', (s) => s.burn_multiple as F],
        ['gross_margin_ttm', (s) => s.gross_margin_ttm as F],
      ];
      for (const row of res.results) {
        const summary = await call<Record<string, unknown>>(
          { company_id: row.company_id },
          mcp,
          'get_company_financial_summary',
        );
        for (const [name, pick] of pairs) {
          const f = pick(summary);
          const expected = f.value === null ? null : (f.converted?.value ?? f.value);
          expect(fig(row, name), `${row.name} ${name}`).to.equal(expected);
        }
      }
      const aurora = res.results.find((r) => r.name === 'Aurora')!;
      expect(fig(aurora, 'revenue_ttm')).to.equal('600000.00');
      expect(fig(aurora, 'net_burn_avg_3m')).to.equal('100000.00');
      expect(fig(aurora, 'runway_months')).to.equal('6.00');
    });

    it("gives money in the firm's currency at the rate on or before the end of its month", async () => {
      const res = await call<Screen>({ reporting_currency: 'EUR', per_page: 100, columns: ['cash_in_bank'] });
      expect(res.results.map((r) => r.name)).to.deep.equal(['Borealis', 'Eddy', 'Exit Ltd']);
      expect(res.currency).to.equal('USD');
      // 1,000,000 EUR at the 2025-12-15 rate of 1.20, not the later 9.99.
      expect(fig(res.results[0]!, 'cash_in_bank')).to.equal('1200000.00');
    });

    it('sorts money by its value in the firm currency', async () => {
      const res = await call<Screen>({ sort_by: '-cash_in_bank', sector: 'saas', per_page: 3 });
      // Haze 5,000,000 USD; Borealis 1,000,000 EUR = 1,200,000 USD; Gale 900,000 USD.
      expect(res.results.map((r) => r.name)).to.deep.equal(['Haze', 'Borealis', 'Gale']);
    });

    it('marks as stale a company without actual data in the three months before the firm latest month', async () => {
      const res = await call<Screen>({ per_page: 100 });
      expect(res.firm_latest_month).to.equal('2025-12');
      const byName = new Map(res.results.map((r) => [r.name, r]));
      expect(byName.get('Wreck')).to.deep.include({ stale: true, last_reported_month: '2023-06' });
      expect(byName.get('Foehn')).to.deep.include({ stale: true, last_reported_month: '2025-06' });
      expect(byName.get('Doldrums')).to.deep.include({ stale: false, last_reported_month: '2025-09' });
      expect(byName.get('Cirrus')).to.deep.include({ stale: false, last_reported_month: '2025-11' });
      expect(byName.get('Acme Analytics')).to.deep.include({ stale: true, last_reported_month: null });
      // The stale company's figures are still its own, as of its last month.
      expect(fig(byName.get('Wreck')!, 'revenue_ttm')).to.equal('1200.00');

      const stale = await call<Screen>({ stale: true, status: 'active', per_page: 100 });
      expect(stale.results.map((r) => r.name)).to.deep.equal([
        'Acme Analytics',
        'Beta Bio',
        'Foehn',
        'Gamma Grid',
      ]);
      // last_reported_month: in a month, before it or after it; a company that never reported fails each.
      const names = async (last_reported_month: string) =>
        (await call<Screen>({ last_reported_month, per_page: 100 })).results.map((r) => r.name);
      const months = res.results.filter((r) => r.last_reported_month !== null);
      expect(await names('2025-09')).to.deep.equal(
        months.filter((r) => r.last_reported_month === '2025-09').map((r) => r.name),
      );
      expect(await names('<2025-09')).to.deep.equal(
        months.filter((r) => r.last_reported_month! < '2025-09').map((r) => r.name),
      );
      expect(await names('>2025-09')).to.deep.equal(
        months.filter((r) => r.last_reported_month! > '2025-09').map((r) => r.name),
      );
      expect(await names('<2025-09')).to.include.members(['Wreck', 'Foehn']);
      expect(await callError({ last_reported_month: '2025-9' })).to.match(/last_reported_month/);
      const fresh = await call<Screen>({ stale: false, per_page: 100 });
      expect(fresh.results.every((r) => !r.stale)).to.equal(true);
      expect(fresh.count + (await call<Screen>({ stale: true })).count).to.equal(res.count);
    });

    it('filters by status, sector and fund, case-insensitively', async () => {
      expect((await call<Screen>({ status: 'Written-Off' })).results.map((r) => r.name)).to.deep.equal([
        'Wreck',
      ]);
      expect((await call<Screen>({ sector: 'health' })).results.map((r) => r.name)).to.deep.equal([
        'Beta Bio',
        'Cirrus',
        'Doldrums',
        'Exit Ltd',
      ]);
      expect((await call<Screen>({ fund_id: fundB })).results.map((r) => r.name)).to.deep.equal([
        'Aurora',
        'Borealis',
      ]);
    });

    it('pages after sorting the whole portfolio', async () => {
      const all = await call<Screen>({ sort_by: '-revenue_ttm', per_page: 100 });
      const page2 = await call<Screen>({ sort_by: '-revenue_ttm', per_page: 4, page: 2 });
      expect(page2.results.map((r) => r.company_id)).to.deep.equal(
        all.results.slice(4, 8).map((r) => r.company_id),
      );
      expect(page2.count).to.equal(all.count);
      expect(await callError({ page: 99, per_page: 10 })).to.match(/past the last page \(2\)/);
    });

    it('rejects an unknown status, sector, fund or sort figure, naming what is valid', async () => {
      expect(await callError({ status: 'zombie' })).to.match(/active.*exited.*written-off/);
      expect(await callError({ sector: 'Mining' })).to.match(/Climate, Health, SaaS/);
      expect(await callError({ fund_id: 'nope' })).to.match(/list_funds/);
      expect(await callError({ sort_by: 'runway' })).to.match(/runway_months/);
    });

    it('ranks by ARR growth in the reporting currency or in the firm currency', async () => {
      const columns = ['arr', 'arr_growth_yoy', 'arr_growth_yoy_firm_currency'];
      const own = await call<Screen>({ status: 'active', sort_by: '-arr_growth_yoy', per_page: 2, columns });
      expect(own.results.map((r) => r.name)).to.deep.equal(['Aurora', 'Borealis']);
      const [aurora, borealis] = own.results as [Row, Row];
      expect(fig(aurora, 'arr_growth_yoy')).to.equal((((1250000 - 1000000) / 1000000) * 100).toFixed(2));
      expect(fig(borealis, 'arr_growth_yoy')).to.equal((((1100000 - 1000000) / 1000000) * 100).toFixed(2));
      expect(fig(borealis, 'arr_growth_yoy_firm_currency')).to.equal(
        (((1100000 * 1.2 - 1000000 * 1.0) / (1000000 * 1.0)) * 100).toFixed(2),
      );
      expect(fig(aurora, 'arr_growth_yoy_firm_currency')).to.equal('25.00');
      // Growth in the reporting currency needs no growth_currency; ARR itself is in USD.
      expect(borealis.growth_currency).to.equal(undefined);
      expect(fig(borealis, 'arr')).to.equal('1320000.00');
      const firm = await call<Screen>({
        status: 'active',
        sort_by: '-arr_growth_yoy_firm_currency',
        per_page: 2,
        columns,
      });
      expect(firm.results.map((r) => r.name)).to.deep.equal(['Borealis', 'Aurora']);
      // Revenue is flat in EUR (80,000 a month) but grew in USD: 960,000 × 1.00 → 960,000 × 1.20.
      const revenue = await call<Screen>({
        reporting_currency: 'EUR',
        columns: ['revenue_growth_yoy', 'revenue_growth_yoy_firm_currency'],
      });
      expect(revenue.results[0]).to.deep.include({
        name: 'Borealis',
        revenue_growth_yoy: '0.00',
        revenue_growth_yoy_firm_currency: '20.00',
      });
    });

    it('names the currency of growth where money reported in several currencies was converted first', async () => {
      await put(ids.e!, 'revenue', '2025-12', '1.00', 'USD');
      try {
        const res = await call<Screen>({ sector: 'climate', columns: ['revenue_growth_yoy'] });
        const eddy = res.results.find((r) => r.name === 'Eddy')!;
        expect(eddy.reporting_currency).to.equal('EUR');
        expect(eddy.growth_currency).to.equal('USD');
      } finally {
        await t.db('metric_data').where({ company_id: ids.e!, currency: 'USD' }).delete();
        await announceMetricChange(t.db, fx.firmA.id, ids.e!);
      }
    });

    it('gives the change in headcount over 12 months in people and percent', async () => {
      const res = await call<Screen>({
        sector: 'saas',
        columns: ['headcount', 'headcount_change_12m', 'headcount_change_12m_pct'],
      });
      const aurora = res.results.find((r) => r.name === 'Aurora')!;
      expect(aurora).to.deep.include({
        headcount: '12',
        headcount_change_12m: String(12 - 10),
        headcount_change_12m_pct: (((12 - 10) / 10) * 100).toFixed(2),
      });
      const haze = res.results.find((r) => r.name === 'Haze')!;
      expect(haze.headcount_change_12m).to.equal(null);
      expect(haze.null_reasons!.headcount_change_12m).to.match(/2024-12/);
    });

    it('compares revenue with the latest budget in its latest period with actuals, as get_budget_variance does', async () => {
      const columns = ['budget_revenue', 'budget_revenue_actual', 'budget_revenue_variance_pct'];
      const res = await call<Screen>({ sector: 'saas', columns, sort_by: 'budget_revenue_variance_pct' });
      const aurora = res.results[0]!;
      expect(aurora).to.deep.include({
        name: 'Aurora',
        budget_period: '2025-12',
        budget_revenue: '62500.00',
        budget_revenue_actual: '50000.00',
        budget_revenue_variance_pct: (((50000 - 62500) / 62500) * 100).toFixed(2),
      });
      const variance = await call<{ results: { period: string; variance_pct: string | null }[] }>(
        { company_id: ids.a!, category: 'revenue' },
        mcp,
        'get_budget_variance',
      );
      const row = variance.results.find((r) => r.period === '2025-12')!;
      expect(aurora.budget_revenue_variance_pct).to.equal(row.variance_pct);
      const haze = res.results.find((r) => r.name === 'Haze')!;
      expect(haze.budget_revenue).to.equal(null);
      expect(haze.null_reasons!.budget_revenue).to.equal('the company has no budget');
    });

    it('compares a quarterly budget figure with the quarterly actual of its own months, never summing monthly actuals into it', async () => {
      const columns = ['budget_revenue', 'budget_revenue_actual', 'budget_revenue_variance_pct'];
      const aurora = async () =>
        (await call<Screen>({ sector: 'saas', columns })).results.find((r) => r.name === 'Aurora')!;
      // A plan of fiscal quarters (Aug–Oct), newer than Aurora's monthly plan.
      const budget = newId();
      await t.db('budgets').insert({
        id: budget,
        firm_id: fx.firmA.id,
        company_id: ids.a!,
        name: 'Fiscal plan',
        date: '2025-06-01',
        created_at: T,
      });
      const quarter = (budgetId: string | null, value: string) => ({
        id: newId(),
        firm_id: fx.firmA.id,
        company_id: ids.a!,
        category_id: standardCategoryId('revenue'),
        cadence: 'quarter',
        date: '2025-10-31',
        value,
        currency: 'USD',
        budget_id: budgetId,
        detailed_source: '',
        archived: false,
        deleted_at: null,
        created_at: T,
        updated_at: T,
      });
      try {
        await t.db('metric_data').insert(quarter(budget, '150000.00'));
        await announceMetricChange(t.db, fx.firmA.id, ids.a!);
        const monthsOnly = await aurora();
        expect(monthsOnly.budget_revenue).to.equal(null);
        expect(monthsOnly.null_reasons!.budget_revenue).to.match(
          /no reported revenue for a period of budget "Fiscal plan"/,
        );
        await t.db('metric_data').insert(quarter(null, '120000.00'));
        await announceMetricChange(t.db, fx.firmA.id, ids.a!);
        expect(await aurora()).to.deep.include({
          budget_period: '2025-08/2025-10',
          budget_revenue: '150000.00',
          budget_revenue_actual: '120000.00',
          budget_revenue_variance_pct: '-20.00',
        });
      } finally {
        await t.db('metric_data').where({ company_id: ids.a!, cadence: 'quarter' }).delete();
        await t.db('budgets').where({ id: budget }).delete();
        await announceMetricChange(t.db, fx.firmA.id, ids.a!);
      }
    });

    it('takes the same budget as get_budget_variance when two tie on date and creation', async () => {
      const columns = ['budget_revenue', 'budget_revenue_variance_pct'];
      // Two plans of one date, created together; ids that sort alike in every collation.
      const [first, second] = ['0', '1'].map((digit) => `${digit}${newId().slice(1)}`) as [string, string];
      const plan = (id: string, name: string) => ({
        id,
        firm_id: fx.firmA.id,
        company_id: ids.a!,
        name,
        date: '2025-07-01',
        created_at: T,
      });
      const figure = (budgetId: string, value: string) => ({
        id: newId(),
        firm_id: fx.firmA.id,
        company_id: ids.a!,
        category_id: standardCategoryId('revenue'),
        cadence: 'month',
        date: monthEnd('2025-12'),
        value,
        currency: 'USD',
        budget_id: budgetId,
        detailed_source: '',
        archived: false,
        deleted_at: null,
        created_at: T,
        updated_at: T,
      });
      await t.db('budgets').insert([plan(second, 'Tied plan B'), plan(first, 'Tied plan A')]);
      try {
        await t.db('metric_data').insert([figure(first, '60000.00'), figure(second, '70000.00')]);
        await announceMetricChange(t.db, fx.firmA.id, ids.a!);
        const screened = (await call<Screen>({ sector: 'saas', columns })).results.find(
          (r) => r.name === 'Aurora',
        )!;
        const ranking = await call<{ results: { company_id: string; budget_id: string; budget: string }[] }>(
          { category: 'revenue', period: 'month' },
          mcp,
          'get_budget_variance',
        );
        const ranked = ranking.results.find((r) => r.company_id === ids.a!)!;
        const own = await call<{ budget_id: string }>(
          { company_id: ids.a!, category: 'revenue' },
          mcp,
          'get_budget_variance',
        );
        expect([ranked.budget_id, own.budget_id]).to.deep.equal([first, first]);
        expect(screened.budget_revenue).to.equal(ranked.budget).and.to.equal('60000.00');
        expect(screened.budget_revenue_variance_pct).to.equal((((50000 - 60000) / 60000) * 100).toFixed(2));
      } finally {
        await t.db('metric_data').whereIn('budget_id', [first, second]).delete();
        await t.db('budgets').whereIn('id', [first, second]).delete();
        await announceMetricChange(t.db, fx.firmA.id, ids.a!);
      }
    });

    it('gives valuation, ownership, MOIC and fair value from the cap table, as get_investment_metrics does', async () => {
      const columns = ['post_money_valuation', 'ownership_pct', 'moic', 'fair_value'];
      const res = await call<Screen>({ columns, sort_by: '-post_money_valuation', per_page: 2 });
      const aurora = res.results[0]!;
      expect(aurora.name).to.equal('Aurora');
      expect(Number(aurora.post_money_valuation)).to.equal(9000000 + 1000000);
      expect(aurora.ownership_pct).to.equal(((100000 / 1000000) * 100).toFixed(2));
      expect(Number(aurora.fair_value)).to.equal(100000 * 20);
      expect(Number(aurora.moic)).to.equal((100000 * 20) / 1000000);
      const { metrics } = await call<{ metrics: Record<string, unknown>[] }>(
        { company_ids: [ids.a!] },
        mcp,
        'get_investment_metrics',
      );
      expect(metrics[0]).to.deep.include({
        moic: aurora.moic,
        fair_value: aurora.fair_value,
        post_money_valuation: aurora.post_money_valuation,
      });
      // A company the funds hold nothing of: null with the reason, sorted last.
      expect(res.results[1]!.post_money_valuation).to.equal(null);
      expect(res.results[1]!.null_reasons!.post_money_valuation).to.match(/hold no security/);
    });

    it('withholds ownership, MOIC and fair value from a caller without the cap-table permission', async () => {
      const viewer = await mcpClient(server.url, fx.viewer.pat);
      try {
        const res = await call<Screen>(
          { sector: 'saas', columns: ['post_money_valuation', 'ownership_pct', 'moic', 'fair_value'] },
          viewer,
        );
        const aurora = res.results.find((r) => r.name === 'Aurora')!;
        expect(Number(aurora.post_money_valuation)).to.equal(10000000);
        for (const f of ['ownership_pct', 'moic', 'fair_value']) {
          expect(aurora[f]).to.equal(null);
          expect(aurora.null_reasons![f]).to.match(/cap-table permission/);
        }
      } finally {
        await viewer.close();
      }
    });

    it('keeps only the rows every filter holds for; a null figure fails every filter', async () => {
      const under = await call<Screen>({
        status: 'active',
        columns: ['runway_months'],
        filters: [{ figure: 'runway_months', op: 'lt', value: 12 }],
        sort_by: 'runway_months',
      });
      const expected = specs
        .filter((s) => s.status === 'active')
        .filter((s) => rawRunway(s) !== null && rawRunway(s)! < 12)
        .sort((a, b) => rawRunway(a)! - rawRunway(b)!)
        .map((s) => s.name);
      expect(under.results.map((r) => r.name)).to.deep.equal(expected);
      expect(under.count).to.equal(expected.length);
      const between = await call<Screen>({
        columns: ['runway_months', 'revenue_ttm'],
        filters: [
          { figure: 'runway_months', op: 'gte', value: 6 },
          { figure: 'runway_months', op: 'lte', value: 10 },
          { figure: 'revenue_ttm', op: 'ne', value: 600000 },
        ],
      });
      const names = specs
        .filter((s) => rawRunway(s) !== null && rawRunway(s)! >= 6 && rawRunway(s)! <= 10)
        .filter((s) => s.revenue * 12 * (s.currency === 'EUR' ? 1.2 : 1) !== 600000)
        .map((s) => s.name)
        .sort();
      expect(between.results.map((r) => r.name)).to.deep.equal(names);
      // Gale is not burning: its runway is null, so it passes neither a filter nor its negation.
      for (const op of ['eq', 'ne', 'gt', 'lt']) {
        const res = await call<Screen>({
          filters: [{ figure: 'runway_months', op, value: 1 }],
          sector: 'saas',
        });
        expect(res.results.map((r) => r.name)).to.not.include('Gale');
      }
    });

    it('returns only the chosen columns, with reasons for the null ones', async () => {
      const res = await call<Screen>({ columns: ['headcount', 'moic'], sector: 'health' });
      for (const row of res.results) {
        const figures = Object.keys(row).filter(
          (k) =>
            ![
              'company_id',
              'name',
              'status',
              'sector',
              'reporting_currency',
              'last_reported_month',
              'stale',
              'null_reasons',
            ].includes(k),
        );
        expect(figures).to.deep.equal(['headcount', 'moic']);
        for (const [k, reason] of Object.entries(row.null_reasons ?? {})) {
          expect(row[k]).to.equal(null);
          expect(reason).to.be.a('string').and.not.equal('');
        }
      }
    });

    it('answers concisely in one table, fields the same in every row stated once', async () => {
      const res = await mcp.callTool({
        name: 'screen_companies',
        arguments: { status: 'active', columns: ['arr'] },
      });
      const concise = res.structuredContent as {
        companies: { columns: string[]; rows: unknown[][] };
        same_in_every_result: Record<string, unknown>;
      };
      const detailed = await call<Screen>({ status: 'active', columns: ['arr'] });
      expect(concise.same_in_every_result).to.include({ status: 'active' });
      const { columns, rows } = concise.companies;
      expect(columns).not.to.include('status');
      const at = (name: string) => columns.indexOf(name);
      expect(rows.map((r) => [r[at('name')], r[at('arr')], r[at('stale')]])).to.deep.equal(
        detailed.results.map((r) => [r.name, r.arr, r.stale]),
      );
    });

    it('totals per group: count, and sum, median, min and max of each column over the companies with a value', async () => {
      const rows = (await call<Screen>({ columns: ['revenue_ttm', 'runway_months'] })).results;
      const res = await call<Screen>({ group_by: 'sector', columns: ['revenue_ttm', 'runway_months'] });
      expect(res.results).to.deep.equal([]);
      const expectStats = (stats: Stats, values: (string | null)[]) => {
        const known = values
          .filter((v): v is string => v !== null)
          .map(Number)
          .sort((a, b) => a - b);
        expect(stats.values).to.equal(known.length);
        if (known.length === 0) return expect(stats.sum).to.equal(null);
        const mid = Math.floor(known.length / 2);
        const median = known.length % 2 ? known[mid]! : (known[mid - 1]! + known[mid]!) / 2;
        expect(Number(stats.sum)).to.be.closeTo(
          known.reduce((a, b) => a + b, 0),
          0.005,
        );
        expect(Number(stats.median)).to.be.closeTo(median, 0.005);
        expect(Number(stats.min)).to.equal(known[0]);
        expect(Number(stats.max)).to.equal(known.at(-1));
      };
      const sectors = [...new Set(rows.map((r) => r.sector))].sort();
      expect(res.groups!.map((g) => g.key)).to.deep.equal(sectors);
      // Stale members are counted, and left out of the statistics.
      for (const g of res.groups!) {
        const members = rows.filter((r) => r.sector === g.key);
        expect(g.count).to.equal(members.length);
        expect(g.stale_count).to.equal(members.filter((r) => r.stale).length);
        for (const col of ['revenue_ttm', 'runway_months'])
          expectStats(
            g.stats[col]!,
            members.filter((r) => !r.stale).map((r) => fig(r, col)),
          );
      }
      expect(res.total!.count).to.equal(rows.length);
      expect(res.total!.stale_count).to.equal(rows.filter((r) => r.stale).length);
      expectStats(
        res.total!.stats.revenue_ttm!,
        rows.filter((r) => !r.stale).map((r) => fig(r, 'revenue_ttm')),
      );
      // SaaS revenue TTM in USD: Aurora 600,000, Borealis 960,000 EUR × 1.20, Gale 2,400,000, Haze 1,080,000;
      // Wreck's 1,200 is stale (last reported 2023-06) and left out.
      const saas = res.groups!.find((g) => g.key === 'SaaS')!;
      expect(saas.stats.revenue_ttm!.sum).to.equal('5232000.00');
      const staleSaasRows = rows.filter((r) => r.sector === 'SaaS' && r.stale);
      expect(staleSaasRows.map((r) => r.name)).to.include('Wreck');
      expect(saas.stale_count).to.equal(staleSaasRows.length);
      // Asked for stale companies only, their statistics are given.
      const stale = await call<Screen>({ group_by: 'sector', stale: true, columns: ['revenue_ttm'] });
      const staleSaas = stale.groups!.find((g) => g.key === 'SaaS')!;
      expect(staleSaas).to.deep.include({ count: staleSaasRows.length, stale_count: staleSaasRows.length });
      expect(staleSaas.stats.revenue_ttm!.sum).to.equal('1200.00');
    });

    it('counts a company in two funds in both fund groups', async () => {
      const res = await call<Screen>({ group_by: 'fund', columns: ['revenue_ttm'], per_page: 100 });
      const a = res.groups!.find((g) => g.key === fx.fundA)!;
      const b = res.groups!.find((g) => g.key === fundB)!;
      expect(b).to.deep.include({ fund_name: 'Alpha Fund II', count: 2 });
      const inA = (await call<Screen>({ fund_id: fx.fundA })).count;
      expect(a.count).to.equal(inA);
      expect((await call<Screen>({ fund_id: fx.fundA })).results.map((r) => r.name)).to.include('Aurora');
      expect(res.groups!.reduce((n, g) => n + g.count, 0)).to.equal(res.total!.count + 1);
      expect(res.results.length).to.equal(res.total!.count);
    });

    it('rejects an unknown column, filter figure or operator, naming the field', async () => {
      const bad = async (args: Record<string, unknown>, field: RegExp) =>
        expect(await callError(args)).to.match(field);
      await bad({ columns: ['arr', 'arr_growth'] }, /columns\[1\]/);
      await bad(
        {
          filters: [
            { figure: 'arr', op: 'gt', value: 1 },
            { figure: 'runway', op: 'lt', value: 12 },
          ],
        },
        /filters\[1\]\.figure/,
      );
      await bad({ filters: [{ figure: 'arr', op: '<', value: 1 }] }, /filters\[0\]\.op/);
      await bad({ filters: [{ figure: 'arr', op: 'lt', value: '12' }] }, /filters\[0\]\.value/);
      await bad({ group_by: 'city' }, /group_by/);
      await bad({ sort_by: '-arr_growth' }, /sort_by/);
    });

    it('shows only the companies the caller can see', async () => {
      const restricted = await mcpClient(server.url, fx.restricted.pat);
      const other = await mcpClient(server.url, fx.other.pat);
      try {
        const mine = await call<Screen>({ per_page: 100 }, restricted);
        expect(mine.results.map((r) => r.name)).to.deep.equal(['Acme Analytics']);
        // The firm's latest month is over visible companies only, so nothing leaks through it.
        expect(mine.firm_latest_month).to.equal(null);
        const theirs = await call<Screen>({ per_page: 100 }, other);
        expect(theirs.results.map((r) => r.name)).to.deep.equal(['Zeta Zero']);
        expect(theirs.currency).to.equal('EUR');
      } finally {
        await restricted.close();
        await other.close();
      }
    });

    it('is served at GET /v1/portfolio/screen/ in the page envelope', async () => {
      const res = await api(
        server.url,
        '/v1/portfolio/screen/?status=active&stale=false&sort_by=runway_months&page_size=2',
        {
          token: fx.admin.rest,
        },
      );
      expect(res.status, JSON.stringify(res.body)).to.equal(200);
      expect(res.body.results.map((r: Row) => r.name)).to.deep.equal(['Cirrus', 'Aurora']);
      expect(res.body.next).to.be.a('string');
      const bad = await api(server.url, '/v1/portfolio/screen/?sort_by=nope', { token: fx.admin.rest });
      expect(bad.status).to.equal(400);
      expect(bad.body.errors[0].field).to.equal('sort_by');
      const chosen = await api(server.url, '/v1/portfolio/screen/?columns=arr&columns=moic&page_size=1', {
        token: fx.admin.rest,
      });
      expect(chosen.status, JSON.stringify(chosen.body)).to.equal(200);
      expect(Object.keys(chosen.body.results[0])).to.include.members(['arr', 'moic']);
      expect(Object.keys(chosen.body.results[0])).to.not.include('runway_months');
      const unknown = await api(server.url, '/v1/portfolio/screen/?columns=arr&columns=nope', {
        token: fx.admin.rest,
      });
      expect(unknown.status).to.equal(400);
      expect(unknown.body.errors[0].field).to.equal('columns[1]');
    });
  });
}
