import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { expect } from 'chai';
import { newId } from '../db/ids.ts';
import type { RunningServer } from '../server/http.ts';
import { insertDatum } from './helpers/datums.ts';
import { dialects, type TestDb } from './helpers/db.ts';
import { buildFixture, type Fixture } from './helpers/fixture.ts';
import { mcpClient } from './helpers/mcp.ts';
import { api, startTestServer } from './helpers/server.ts';

interface Row {
  category: string;
  kind: string;
  period: string;
  date: string;
  budget: string;
  actual: string | null;
  variance: string | null;
  variance_pct: string | null;
  reason: string | null;
}
interface Answer {
  count: number;
  budget_id: string;
  results: Row[];
}

for (const dialect of dialects) {
  describe(`get_budget_variance: budget against actual (${dialect.name}) @db`, () => {
    let t: TestDb;
    let fx: Fixture;
    let server: RunningServer;
    let client: Client;
    let restricted: Client;
    let oldBudget: string;
    let latestBudget: string;

    const call = async (args: Record<string, unknown>, as = client) =>
      (await as.callTool({ name: 'get_budget_variance', arguments: args })) as unknown as {
        isError?: boolean;
        structuredContent: Answer;
        content: { text: string }[];
      };

    async function budget(name: string, date: string, companyId: string): Promise<string> {
      const id = newId();
      await t.db('budgets').insert({
        id,
        firm_id: fx.firmA.id,
        company_id: companyId,
        name,
        date,
        color: '#ffffff',
        description: '',
        created_at: '2026-01-01T00:00:00.000Z',
      });
      return id;
    }

    before(async () => {
      t = await dialect.open();
      fx = await buildFixture(t.db);
      const acme = fx.companies.acme.id;
      oldBudget = await budget('Plan 2025', '2024-12-01', acme);
      latestBudget = await budget('Plan 2026', '2025-12-01', acme);
      await budget('Gamma plan', '2026-01-01', fx.companies.gamma.id);
      const d = (seed: Parameters<typeof insertDatum>[1]) => insertDatum(t.db, seed);
      const base = { firmId: fx.firmA.id, companyId: acme };
      // Flows, monthly: revenue budget 100 and 200, actual 110 and 150.
      await d({ ...base, category: 'revenue', date: '2026-01-31', value: '100', budgetId: latestBudget });
      await d({ ...base, category: 'revenue', date: '2026-02-28', value: '200', budgetId: latestBudget });
      await d({ ...base, category: 'revenue', date: '2026-01-31', value: '110' });
      await d({ ...base, category: 'revenue', date: '2026-02-28', value: '150' });
      // A quarterly budget compared with the quarterly actual, not with a month.
      await d({
        ...base,
        category: 'net_burn',
        cadence: 'quarter',
        date: '2026-03-31',
        value: '300',
        budgetId: latestBudget,
      });
      await d({ ...base, category: 'net_burn', cadence: 'quarter', date: '2026-03-31', value: '270' });
      await d({ ...base, category: 'net_burn', cadence: 'month', date: '2026-03-31', value: '90' });
      // A stock at its date: the latest cash of that month up to the date.
      await d({
        ...base,
        category: 'cash_in_bank',
        cadence: 'point_in_time',
        date: '2026-01-31',
        value: '1000',
        budgetId: latestBudget,
      });
      await d({
        ...base,
        category: 'cash_in_bank',
        cadence: 'point_in_time',
        date: '2026-01-15',
        value: '900',
      });
      await d({
        ...base,
        category: 'cash_in_bank',
        cadence: 'point_in_time',
        date: '2026-01-20',
        value: '950',
      });
      // No actual at all, and a zero budget.
      await d({
        ...base,
        category: 'headcount',
        cadence: 'point_in_time',
        date: '2026-02-28',
        value: '12',
        currency: null,
        budgetId: latestBudget,
      });
      await d({ ...base, category: 'ebitda', date: '2026-01-31', value: '0', budgetId: latestBudget });
      await d({ ...base, category: 'ebitda', date: '2026-01-31', value: '-5' });
      // The older budget.
      await d({ ...base, category: 'revenue', date: '2026-01-31', value: '120', budgetId: oldBudget });
      server = await startTestServer(t.db);
      client = await mcpClient(server.url, fx.admin.pat);
      restricted = await mcpClient(server.url, fx.restricted.pat);
    });
    after(async () => {
      await client?.close();
      await restricted?.close();
      await server?.close();
      await t?.drop();
    });

    const find = (rows: Row[], category: string, date: string) =>
      rows.find((r) => r.category === category && r.date === date)!;

    it('compares flows per period: budget, actual, variance and variance %', async () => {
      const res = await call({ company_id: fx.companies.acme.id });
      expect(res.isError ?? false, res.content[0]?.text).to.equal(false);
      const rows = res.structuredContent.results;
      expect(res.structuredContent.budget_id).to.equal(latestBudget);
      expect(find(rows, 'revenue', '2026-01-31')).to.include({
        kind: 'flow',
        period: '2026-01',
        budget: '100',
        actual: '110',
        variance: '10',
        variance_pct: '10.00',
      });
      expect(find(rows, 'revenue', '2026-02-28')).to.include({
        actual: '150',
        variance: '-50',
        variance_pct: '-25.00',
      });
      expect(find(rows, 'net_burn', '2026-03-31')).to.include({
        period: '2026-Q1',
        actual: '270',
        variance: '-30',
        variance_pct: '-10.00',
      });
    });

    it('compares stocks at each date with the latest value of that month up to it', async () => {
      const rows = (await call({ company_id: fx.companies.acme.id })).structuredContent.results;
      expect(find(rows, 'cash_in_bank', '2026-01-31')).to.include({
        kind: 'stock',
        actual: '950',
        variance: '-50',
        variance_pct: '-5.00',
      });
    });

    it('says why a variance is missing: no actual, or a zero budget', async () => {
      const rows = (await call({ company_id: fx.companies.acme.id })).structuredContent.results;
      const headcount = find(rows, 'headcount', '2026-02-28');
      expect(headcount.actual).to.equal(null);
      expect(headcount.variance).to.equal(null);
      expect(headcount.reason).to.match(/no value reported/);
      const ebitda = find(rows, 'ebitda', '2026-01-31');
      expect(ebitda).to.include({ variance: '-5', variance_pct: null });
      expect(ebitda.reason).to.match(/budget is 0/);
    });

    it('uses the budget asked for, one category matched case-insensitively, and the date range', async () => {
      const old = await call({ company_id: fx.companies.acme.id, budget_id: oldBudget });
      expect(old.structuredContent.results).to.have.length(1);
      expect(old.structuredContent.results[0]).to.include({ budget: '120', variance: '-10' });
      const revenue = await call({
        company_id: fx.companies.acme.id,
        category: 'Revenue',
        from_date: '2026-02-01',
      });
      expect(revenue.structuredContent.results.map((r) => r.date)).to.deep.equal(['2026-02-28']);
      const burn = await call({ company_id: fx.companies.acme.id, category: 'burn' });
      expect(burn.isError).to.equal(true);
      expect(burn.content[0]!.text).to.contain('did you mean "net_burn"?');
    });

    it('refuses a budget of another company and a company the caller cannot see', async () => {
      const wrong = await call({ company_id: fx.companies.beta.id, budget_id: latestBudget });
      expect(wrong.isError).to.equal(true);
      expect(wrong.content[0]!.text).to.match(/no budget/);
      const hidden = await call({ company_id: fx.companies.gamma.id }, restricted);
      expect(hidden.isError).to.equal(true);
      expect(hidden.content[0]!.text).to.match(/no company with id/);
      const foreign = await call({ company_id: fx.companies.zeta.id });
      expect(foreign.isError).to.equal(true);
    });

    it('answers the same over REST at GET /v1/budgets/variance/', async () => {
      const res = await api(
        server.url,
        `/v1/budgets/variance/?company_id=${fx.companies.acme.id}&category=revenue`,
        {
          token: fx.admin.rest,
        },
      );
      expect(res.status).to.equal(200);
      expect(res.body.budget_id).to.equal(latestBudget);
      expect(res.body.results.map((r: Row) => r.variance)).to.deep.equal(['10', '-50']);
    });
  });
}
