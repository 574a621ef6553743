import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { expect } from 'chai';
import { STANDARD_CATEGORIES, standardCategoryId } from '../core/categories.ts';
import { newId } from '../db/ids.ts';
import type { RunningServer } from '../server/http.ts';
import { insertDatum } from './helpers/datums.ts';
import { dialects, type TestDb } from './helpers/db.ts';
import { buildFixture, type Fixture } from './helpers/fixture.ts';
import { mcpClient } from './helpers/mcp.ts';
import { api, startTestServer } from './helpers/server.ts';

const T = '2026-01-05T00:00:00.000Z';
const stocks = new Set(STANDARD_CATEGORIES.filter((c) => c.pointInTime).map((c) => c.name));

interface PFigure {
  value: string | null;
  unit: string;
  as_of_month: string | null;
  currency: string | null;
  converted_value: string | null;
  converted_currency: string | null;
  fx_rate: number | null;
  fx_rate_date: string | null;
  reason: string | null;
}
interface Row {
  company_id: string;
  name: string;
  status: string;
  sector: string;
  reporting_currency: string;
  last_reported_month: string | null;
  stale: boolean;
  [figure: string]: unknown;
}
interface Screen {
  count: number;
  page: number;
  per_page: number;
  has_more: boolean;
  firm_latest_month: string | null;
  currency: string;
  results: Row[];
}

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
    }

    async function call<R>(
      args: Record<string, unknown>,
      client = mcp,
      name = 'screen_companies',
    ): Promise<R> {
      const res = await client.callTool({ name, arguments: args });
      expect(res.isError, JSON.stringify(res.content)).to.not.equal(true);
      return res.structuredContent as R;
    }

    async function callError(args: Record<string, unknown>): Promise<string> {
      const res = await mcp.callTool({ name: 'screen_companies', arguments: args });
      expect(res.isError).to.equal(true);
      return (res.content as { text: string }[])[0]!.text;
    }

    const fig = (row: Row, name: string) => row[name] as PFigure;

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
      const active = specs.filter((s) => s.status === 'active');
      const expected = active
        .map((s) => ({ name: s.name, runway: rawRunway(s) }))
        .filter((r) => r.runway !== null)
        .sort((a, b) => a.runway! - b.runway!)
        .slice(0, 5);
      expect(res.results.map((r) => r.name)).to.deep.equal(expected.map((r) => r.name));
      res.results.forEach((row, i) => {
        expect(row.status).to.equal('active');
        expect(Number(fig(row, 'runway_months').value)).to.be.closeTo(expected[i]!.runway!, 0.005);
      });
      // 8 active companies of this test plus the fixture's 3 active companies without data.
      expect(res.count).to.equal(active.length + 3);
      expect(res.has_more).to.equal(true);
      expect(res.results.map((r) => r.name)).to.not.include('Wreck');
    });

    it('puts rows whose sort figure is null last, in both directions', async () => {
      for (const sort_by of ['runway_months', '-runway_months']) {
        const res = await call<Screen>({ sort_by, per_page: 100 });
        const values = res.results.map((r) => fig(r, 'runway_months').value);
        const firstNull = values.indexOf(null);
        expect(firstNull).to.be.greaterThan(0);
        expect(values.slice(firstNull).every((v) => v === null)).to.equal(true);
        const numbers = values.slice(0, firstNull).map(Number);
        const sorted = [...numbers].sort((a, b) => (sort_by.startsWith('-') ? b - a : a - b));
        expect(numbers).to.deep.equal(sorted);
      }
      const gale = (await call<Screen>({ per_page: 100 })).results.find((r) => r.name === 'Gale')!;
      expect(fig(gale, 'runway_months').reason).to.match(/not burning/);
    });

    it('gives every figure the same value as get_company_financial_summary', async () => {
      const res = await call<Screen>({ per_page: 100 });
      const pairs: [string, (s: Record<string, unknown>) => unknown][] = [
        ['cash_in_bank', (s) => (s.latest as Record<string, { value: string | null }>).cash_in_bank!.value],
        ['arr', (s) => (s.latest as Record<string, { value: string | null }>).arr!.value],
        ['headcount', (s) => (s.latest as Record<string, { value: string | null }>).headcount!.value],
        ['revenue_ttm', (s) => (s.ttm_revenue as PFigure).value],
        ['revenue_growth_yoy', (s) => (s.revenue_growth_yoy as PFigure).value],
        ['net_burn_avg_3m', (s) => (s.net_burn_avg_3m as PFigure).value],
        ['runway_months', (s) => (s.runway_months as PFigure).value],
        ['burn_multiple', (s) => (s.burn_multiple as PFigure).value],
        ['gross_margin_ttm', (s) => (s.gross_margin_ttm as PFigure).value],
      ];
      for (const row of res.results) {
        const summary = await call<Record<string, unknown>>(
          { company_id: row.company_id },
          mcp,
          'get_company_financial_summary',
        );
        for (const [name, pick] of pairs)
          expect(fig(row, name).value, `${row.name} ${name}`).to.equal(pick(summary));
      }
      const aurora = res.results.find((r) => r.name === 'Aurora')!;
      expect(fig(aurora, 'revenue_ttm').value).to.equal('600000.00');
      expect(fig(aurora, 'net_burn_avg_3m').value).to.equal('100000.00');
      expect(fig(aurora, 'runway_months').value).to.equal('6.00');
      expect(fig(aurora, 'runway_months').as_of_month).to.equal('2025-12');
    });

    it("shows money as reported and in the firm's currency with the rate and its date", async () => {
      const res = await call<Screen>({ reporting_currency: 'EUR', per_page: 100 });
      expect(res.results.map((r) => r.name)).to.deep.equal(['Borealis', 'Eddy', 'Exit Ltd']);
      expect(res.currency).to.equal('USD');
      const borealis = res.results[0]!;
      expect(fig(borealis, 'cash_in_bank')).to.deep.include({
        value: '1000000.00',
        currency: 'EUR',
        converted_value: '1200000.00',
        converted_currency: 'USD',
        fx_rate: 1.2,
        fx_rate_date: '2025-12-15',
        as_of_month: '2025-12',
      });
      // Non-money figures carry no currency.
      expect(fig(borealis, 'runway_months')).to.deep.include({ currency: null, converted_value: null });
      const aurora = (await call<Screen>({ per_page: 100 })).results.find((r) => r.name === 'Aurora')!;
      expect(fig(aurora, 'cash_in_bank')).to.deep.include({
        value: '600000.00',
        currency: 'USD',
        converted_value: '600000.00',
        fx_rate: 1,
      });
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
      expect(fig(byName.get('Wreck')!, 'cash_in_bank').as_of_month).to.equal('2023-06');

      const stale = await call<Screen>({ stale: true, status: 'active', per_page: 100 });
      expect(stale.results.map((r) => r.name)).to.deep.equal([
        'Acme Analytics',
        'Beta Bio',
        'Foehn',
        'Gamma Grid',
      ]);
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
    });
  });
}
