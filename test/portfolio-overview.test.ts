import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { expect } from 'chai';
import { STANDARD_CATEGORIES } from '../core/categories.ts';
import { newId } from '../db/ids.ts';
import type { RunningServer } from '../server/http.ts';
import { insertDatum } from './helpers/datums.ts';
import { dialects, type TestDb } from './helpers/db.ts';
import { buildFixture, type Fixture } from './helpers/fixture.ts';
import { mcpClient } from './helpers/mcp.ts';
import { api, startTestServer, TestClock } from './helpers/server.ts';

const T = '2026-01-05T00:00:00.000Z';
const stocks = new Set(STANDARD_CATEGORIES.filter((c) => c.pointInTime).map((c) => c.name));

interface Total {
  value: string | null;
  currency: string;
  company_count: number;
  excluded: { company_id: string; company_name: string; reason: string }[];
}
interface Overview {
  fund_id: string | null;
  currency: string;
  firm_latest_month: string | null;
  company_count: number;
  by_status: { status: string; count: number }[];
  by_sector: { sector: string; count: number }[];
  totals: { cash_in_bank: Total; arr: Total; revenue_ttm: Total };
  latest_information_request: { id: string; name: string; due_date: string } | null;
  needs_attention: { company_name: string; status: string; reasons: { kind: string; detail: string }[] }[];
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

for (const dialect of dialects) {
  describe(`get_portfolio_overview (${dialect.name}) @db`, () => {
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

    async function addCompany(
      name: string,
      status: string,
      sector: string,
      currency: string,
      funds: string[],
    ) {
      const id = newId();
      await fx.repos.companies.create(
        {
          id,
          firm_id: fx.firmA.id,
          name,
          slug: name.toLowerCase(),
          description: '',
          sector,
          firm_sector: 'Software',
          city: 'Paris',
          status,
          unique_ref: '',
          website: '',
          logo_url: 'https://logos.example/x.png',
          fiscal_year_end: '12-31',
          reporting_currency: currency,
          investment_lead_id: null,
          created_at: T,
          updated_at: T,
        },
        funds,
      );
      return id;
    }

    async function request(name: string, due: string, reports: [string, string | null][]) {
      const id = newId();
      await t.db('information_requests').insert({
        id,
        firm_id: fx.firmA.id,
        name,
        due_date: due,
        period_start_date: '2025-10-01',
        period_end_date: '2025-12-31',
        period: 'quarter',
        status: 'open',
        created_at: T,
      });
      for (const [company, submitted] of reports) {
        await t.db('information_reports').insert({
          id: newId(),
          firm_id: fx.firmA.id,
          company_id: ids[company],
          information_request_id: id,
          submitted_at: submitted,
          status: submitted ? 'completed' : 'not-started',
          created_at: T,
        });
      }
    }

    async function overview(args: Record<string, unknown> = {}, client = mcp): Promise<Overview> {
      const res = await client.callTool({
        name: 'get_portfolio_overview',
        arguments: { response_format: 'detailed', ...args },
      });
      expect(res.isError, JSON.stringify(res.content)).to.not.equal(true);
      return res.structuredContent as Overview;
    }

    before(async () => {
      t = await dialect.open();
      fx = await buildFixture(t.db);
      fundB = newId();
      await t.db('funds').insert({
        id: fundB,
        firm_id: fx.firmA.id,
        name: 'Alpha Fund II',
        size: '1.00',
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
          date: '2025-06-01',
          rate: '1.10',
        },
        {
          id: newId(),
          firm_id: fx.firmA.id,
          from_currency: 'EUR',
          to_currency: 'USD',
          date: '2025-12-20',
          rate: '1.20',
        },
      ]);
      ids.polar = await addCompany('Polar', 'active', 'SaaS', 'USD', [fundB]);
      ids.quasar = await addCompany('Quasar', 'active', 'Fintech', 'EUR', [fx.fundA]);
      ids.relic = await addCompany('Relic', 'active', 'SaaS', 'USD', [fx.fundA]);
      ids.ruin = await addCompany('Ruin', 'written-off', 'SaaS', 'USD', [fundB]);

      for (const ym of monthsBack('2025-12', 12)) {
        await put(ids.polar, 'revenue', ym, '50000.00', 'USD');
        await put(ids.quasar, 'revenue', ym, '10000.00', 'EUR');
      }
      for (const ym of monthsBack('2025-12', 3)) {
        await put(ids.polar, 'net_burn', ym, '100000.00', 'USD');
        await put(ids.quasar, 'net_burn', ym, '50000.00', 'EUR');
      }
      await put(ids.polar, 'cash_in_bank', '2025-12', '600000.00', 'USD');
      await put(ids.polar, 'arr', '2025-12', '1200000.00', 'USD');
      await put(ids.quasar, 'cash_in_bank', '2025-12', '1000000.00', 'EUR');
      await put(ids.quasar, 'arr', '2025-12', '500000.00', 'EUR');
      await put(ids.relic, 'cash_in_bank', '2025-03', '50000.00', 'USD');
      await put(ids.relic, 'arr', '2025-03', '90000.00', 'USD');
      for (const ym of monthsBack('2023-06', 3)) await put(ids.ruin, 'net_burn', ym, '80000.00', 'USD');
      await put(ids.ruin, 'cash_in_bank', '2023-06', '1000.00', 'USD');

      // Only the request with the latest due date up to today (2026-01-20) counts.
      await request('Q3 2025', '2025-10-15', [
        ['quasar', null],
        ['polar', '2025-11-01T09:00:00Z'],
      ]);
      await request('Q4 2025', '2026-01-15', [
        ['polar', '2026-01-18T10:00:00Z'],
        ['quasar', null],
        ['relic', '2026-01-10T10:00:00Z'],
      ]);
      await request('Jan 2026', '2026-02-15', [['relic', null]]);

      server = await startTestServer(t.db, { clock: new TestClock(new Date('2026-01-20T12:00:00.000Z')) });
      mcp = await mcpClient(server.url, fx.admin.pat);
    });

    after(async () => {
      await mcp?.close();
      await server?.close();
      await t?.drop();
    });

    it('counts companies by status and by sector, most first', async () => {
      const res = await overview();
      expect(res.company_count).to.equal(7);
      expect(res.by_status).to.deep.equal([
        { status: 'active', count: 6 },
        { status: 'written-off', count: 1 },
      ]);
      expect(res.by_sector).to.deep.equal([
        { sector: 'SaaS', count: 4 },
        { sector: 'Climate', count: 1 },
        { sector: 'Fintech', count: 1 },
        { sector: 'Health', count: 1 },
      ]);
    });

    it("totals cash, ARR and TTM revenue of the active companies in the firm's currency, naming who is left out", async () => {
      const { totals, currency, firm_latest_month } = await overview();
      expect(currency).to.equal('USD');
      expect(firm_latest_month).to.equal('2025-12');
      // Polar 600,000 USD + Quasar 1,000,000 EUR × 1.20.
      expect(totals.cash_in_bank).to.deep.include({ value: '1800000.00', currency: 'USD', company_count: 2 });
      // Polar 1,200,000 USD + Quasar 500,000 EUR × 1.20.
      expect(totals.arr.value).to.equal('1800000.00');
      // Polar 12 × 50,000 USD + Quasar 12 × 10,000 EUR × 1.20.
      expect(totals.revenue_ttm.value).to.equal('744000.00');
      const left = new Map(totals.cash_in_bank.excluded.map((e) => [e.company_name, e.reason]));
      expect([...left.keys()].sort()).to.deep.equal(['Acme Analytics', 'Beta Bio', 'Gamma Grid', 'Relic']);
      expect(left.get('Relic')).to.match(/2025-03/);
      expect(left.get('Acme Analytics')).to.match(/no actual data/);
    });

    it('lists the active companies that need attention, each with why', async () => {
      const res = await overview();
      expect(res.latest_information_request).to.deep.include({ name: 'Q4 2025', due_date: '2026-01-15' });
      const byName = new Map(res.needs_attention.map((a) => [a.company_name, a.reasons]));
      expect([...byName.keys()]).to.deep.equal([
        'Acme Analytics',
        'Beta Bio',
        'Gamma Grid',
        'Polar',
        'Quasar',
        'Relic',
      ]);
      expect(byName.get('Polar')!.map((r) => r.kind)).to.deep.equal(['short_runway', 'late_report']);
      expect(byName.get('Polar')![0]!.detail).to.match(/6\.00 months as of 2025-12/);
      expect(byName.get('Polar')![1]!.detail).to.match(/submitted late, on 2026-01-18/);
      // Quasar's runway is 20 months; it has not submitted the Q4 report.
      expect(byName.get('Quasar')!.map((r) => r.kind)).to.deep.equal(['late_report']);
      expect(byName.get('Quasar')![0]!.detail).to.match(/not submitted/);
      // Relic submitted on time but its data stopped in March.
      expect(byName.get('Relic')!.map((r) => r.kind)).to.deep.equal(['stale_data']);
      // A written-off company is never flagged.
      expect(byName.has('Ruin')).to.equal(false);
    });

    it('restricts everything to the companies of one fund', async () => {
      const res = await overview({ fund_id: fundB });
      expect(res.fund_id).to.equal(fundB);
      expect(res.company_count).to.equal(2);
      expect(res.by_status).to.deep.equal([
        { status: 'active', count: 1 },
        { status: 'written-off', count: 1 },
      ]);
      expect(res.totals.cash_in_bank).to.deep.include({ value: '600000.00', company_count: 1 });
      expect(res.needs_attention.map((a) => a.company_name)).to.deep.equal(['Polar']);
      const bad = await mcp.callTool({ name: 'get_portfolio_overview', arguments: { fund_id: 'nope' } });
      expect(bad.isError).to.equal(true);
      expect((bad.content as { text: string }[])[0]!.text).to.match(/list_funds/);
    });

    it('shows only the companies the caller can see', async () => {
      const restricted = await mcpClient(server.url, fx.restricted.pat);
      const other = await mcpClient(server.url, fx.other.pat);
      try {
        const mine = await overview({}, restricted);
        expect(mine.company_count).to.equal(1);
        expect(mine.totals.cash_in_bank.value).to.equal(null);
        expect(mine.needs_attention.map((a) => a.company_name)).to.deep.equal(['Acme Analytics']);
        const theirs = await overview({}, other);
        expect(theirs.company_count).to.equal(1);
        expect(theirs.currency).to.equal('EUR');
        expect(theirs.latest_information_request).to.equal(null);
        const foreignFund = await other.callTool({
          name: 'get_portfolio_overview',
          arguments: { fund_id: fundB },
        });
        expect(foreignFund.isError).to.equal(true);
      } finally {
        await restricted.close();
        await other.close();
      }
    });

    it('is served at GET /v1/portfolio/overview/', async () => {
      const res = await api(server.url, `/v1/portfolio/overview/?fund_id=${fundB}`, { token: fx.admin.rest });
      expect(res.status, JSON.stringify(res.body)).to.equal(200);
      expect(res.body.company_count).to.equal(2);
      const missing = await api(server.url, '/v1/portfolio/overview/?fund_id=nope', { token: fx.admin.rest });
      expect(missing.status).to.equal(404);
    });
  });
}
