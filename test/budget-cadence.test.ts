import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { expect } from 'chai';
import { newId } from '../db/ids.ts';
import type { RunningServer } from '../server/http.ts';
import { insertDatum } from './helpers/datums.ts';
import { dialects, type TestDb } from './helpers/db.ts';
import { buildFixture, type Fixture } from './helpers/fixture.ts';
import { mcpClient } from './helpers/mcp.ts';
import { api, startTestServer } from './helpers/server.ts';

type Row = Record<string, unknown>;

// Acme budgets revenue monthly for 2026-01 … 2026-06; Gamma, whose fiscal year ends 31 January,
// budgets one fiscal quarter (Feb–Apr 2026, dated at its end). Actuals in the same cadences.
const MONTH_ENDS = ['2026-01-31', '2026-02-28', '2026-03-31', '2026-04-30', '2026-05-31', '2026-06-30'];
const PLAN = [100, 110, 120, 130, 140, 150];
const ACTUAL = [90, 115, 118, 120, 150, 140];
const GAMMA_PLAN = 900;
const GAMMA_ACTUAL = 810;

const BETA_2025_MONTHS = Array.from({ length: 12 }, (_, i) =>
  new Date(Date.UTC(2025, i + 1, 0)).toISOString().slice(0, 10),
);
const BETA_Q1_PLAN = 900;
const BETA_Q1_ACTUAL = [300, 310, 320];

const pct = (actual: number, plan: number) => (((actual - plan) / Math.abs(plan)) * 100).toFixed(2);
const sum = (xs: number[]) => xs.reduce((a, b) => a + b, 0);

for (const dialect of dialects) {
  describe(`budgets show their cadence and roll-ups (${dialect.name}) @db`, () => {
    let t: TestDb;
    let fx: Fixture;
    let server: RunningServer;
    let client: Client;
    const budgets: Record<string, string> = {};

    async function budget(name: string, companyId: string, date = '2026-01-01'): Promise<string> {
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
      const acme = { firmId: fx.firmA.id, companyId: fx.companies.acme.id, category: 'revenue' };
      const gamma = { firmId: fx.firmA.id, companyId: fx.companies.gamma.id, category: 'revenue' };
      await t.db('companies').where({ id: gamma.companyId }).update({ fiscal_year_end: '01-31' });
      budgets.acme = await budget('Acme plan', acme.companyId);
      budgets.gamma = await budget('Gamma plan', gamma.companyId);
      for (const [i, date] of MONTH_ENDS.entries()) {
        await insertDatum(t.db, { ...acme, date, value: String(PLAN[i]), budgetId: budgets.acme });
        await insertDatum(t.db, { ...acme, date, value: String(ACTUAL[i]) });
      }
      const quarter = { ...gamma, cadence: 'quarter', date: '2026-04-30', currency: 'EUR' };
      await insertDatum(t.db, { ...quarter, value: String(GAMMA_PLAN), budgetId: budgets.gamma });
      await insertDatum(t.db, { ...quarter, value: String(GAMMA_ACTUAL) });
      // Beta's monthly 2025 plan and its latest budget, the quarterly 2026 plan; actuals every month.
      const beta = { firmId: fx.firmA.id, companyId: fx.companies.beta.id, category: 'revenue' };
      budgets.beta2025 = await budget('2025 plan', beta.companyId, '2025-01-01');
      budgets.beta2026 = await budget('2026 plan', beta.companyId, '2026-01-01');
      for (const month of BETA_2025_MONTHS) {
        await insertDatum(t.db, { ...beta, date: month, value: '100', budgetId: budgets.beta2025 });
        await insertDatum(t.db, { ...beta, date: month, value: '100' });
      }
      const q1 = { ...beta, cadence: 'quarter', date: '2026-03-31' };
      await insertDatum(t.db, { ...q1, value: String(BETA_Q1_PLAN), budgetId: budgets.beta2026 });
      for (const [i, date] of ['2026-01-31', '2026-02-28', '2026-03-31'].entries())
        await insertDatum(t.db, { ...beta, date, value: String(BETA_Q1_ACTUAL[i]) });
      server = await startTestServer(t.db);
      client = await mcpClient(server.url, fx.admin.pat);
    });
    after(async () => {
      await client?.close();
      await server?.close();
      await t?.drop();
    });

    const call = async (name: string, args: Row) => {
      const res = await client.callTool({ name, arguments: { response_format: 'detailed', ...args } });
      expect(res.isError ?? false, JSON.stringify(res.content)).to.equal(false);
      return res.structuredContent as Row;
    };
    const ranking = async (args: Row) => {
      const rows = (await call('get_budget_variance', { category: 'revenue', ...args })).results as Row[];
      return new Map(rows.map((r) => [r.company_id as string, r]));
    };

    it("lists each budget's cadence", async () => {
      const rows = (await call('list_budgets', {})).results as Row[];
      const cadence = new Map(rows.map((r) => [r.id, r.cadence]));
      expect(cadence.get(budgets.acme)).to.equal('monthly');
      expect(cadence.get(budgets.gamma)).to.equal('quarterly');
    });

    it('answers concisely in one table each: budgets with their cadence, ranking rows with their roll-up', async () => {
      const table = async (name: string, args: Row, key: string) => {
        const res = await client.callTool({ name, arguments: args });
        const t = (res.structuredContent as Record<string, { columns: string[]; rows: unknown[][] }>)[key]!;
        return t.rows.map((r) => Object.fromEntries(t.columns.map((c, i) => [c, r[i]])));
      };
      const listed = await table('list_budgets', {}, 'budgets');
      expect(listed.find((b) => b.id === budgets.acme)).to.deep.equal({
        id: budgets.acme,
        date: '2026-01-01',
        company: 'Acme Analytics',
        company_id: fx.companies.acme.id,
        name: 'Acme plan',
        cadence: 'monthly',
        description: '',
      });
      const ranked = await table(
        'get_budget_variance',
        { category: 'revenue', period: 'quarter' },
        'variances',
      );
      expect(ranked.find((r) => r.company_id === fx.companies.acme.id)).to.include({
        period: '2026-Q2',
        span: '2026-04/2026-06',
        rolled_up_from: 'monthly',
        figures: 3,
      });
    });

    it('keeps the REST budget rows in the reference shape, in JSON and CSV', async () => {
      const json = await api(server.url, '/v1/budgets/', { token: fx.admin.rest });
      expect(json.status).to.equal(200);
      const rows = (json.body as { results: Row[] }).results;
      expect(rows.length).to.be.greaterThan(0);
      for (const row of rows) expect(row).not.to.have.property('cadence');
      const csv = await fetch(`${server.url}/v1/budgets/?format=csv`, {
        headers: { Authorization: `Bearer ${fx.admin.rest}` },
      });
      const header = (await csv.text()).split('\n')[0]!;
      expect(header).to.include('name');
      expect(header).not.to.include('cadence');
    });

    it('says what a quarterly ranking summed: three monthly figures into the quarter', async () => {
      const acme = (await ranking({ period: 'quarter' })).get(fx.companies.acme.id)!;
      const plan = sum(PLAN.slice(3));
      const actual = sum(ACTUAL.slice(3));
      expect(acme).to.include({
        period: '2026-Q2',
        budget_cadence: 'monthly',
        rolled_up_from: 'monthly',
        figures: 3,
        budget: String(plan),
        actual: String(actual),
        variance_pct: pct(actual, plan),
      });
      expect(acme.span).to.deep.equal({ from: '2026-04', to: '2026-06' });
    });

    it('ranks each company at its own budget cadence on request, saying which period each row is', async () => {
      const rows = await ranking({ period: 'budget' });
      expect(rows.get(fx.companies.acme.id)).to.include({
        period: '2026-06',
        rolled_up_from: null,
        figures: 1,
        variance_pct: pct(ACTUAL[5]!, PLAN[5]!),
      });
      // Gamma's one quarterly figure covers Feb–Apr, no calendar quarter: its own period is that fiscal quarter.
      expect(rows.get(fx.companies.gamma.id)).to.deep.include({
        period: 'FY2027-Q1',
        budget_cadence: 'quarterly',
        span: { from: '2026-02', to: '2026-04' },
        variance_pct: pct(GAMMA_ACTUAL, GAMMA_PLAN),
      });
    });

    it('ranks a company at the cadence of the budget that counts, not of an older plan', async () => {
      const beta = (await ranking({ period: 'budget' })).get(fx.companies.beta.id);
      expect(beta).to.deep.include({
        budget_id: budgets.beta2026,
        budget_name: '2026 plan',
        budget_cadence: 'quarterly',
        period: '2026-Q1',
        span: { from: '2026-01', to: '2026-03' },
        budget: String(BETA_Q1_PLAN),
        actual: String(sum(BETA_Q1_ACTUAL)),
        variance_pct: pct(sum(BETA_Q1_ACTUAL), BETA_Q1_PLAN),
      });
    });

    it('uses a fiscal quarter only in the fiscal ranking, as that fiscal quarter', async () => {
      const calendar = await ranking({ period: 'quarter' });
      expect(calendar.has(fx.companies.gamma.id)).to.equal(false);
      const fiscal = (await ranking({ period: 'quarter', fiscal: true })).get(fx.companies.gamma.id)!;
      expect(fiscal).to.include({
        period: 'FY2027-Q1',
        rolled_up_from: null,
        budget: String(GAMMA_PLAN),
        actual: String(GAMMA_ACTUAL),
        variance_pct: pct(GAMMA_ACTUAL, GAMMA_PLAN),
      });
    });

    it("states the budget's cadence with one company's variance", async () => {
      const answer = await call('get_budget_variance', { company_id: fx.companies.gamma.id });
      expect(answer.budget_cadence).to.equal('quarterly');
      expect((answer.results as Row[])[0]).to.include({
        period: '2026-02/2026-04',
        variance: String(GAMMA_ACTUAL - GAMMA_PLAN),
      });
    });
  });
}
