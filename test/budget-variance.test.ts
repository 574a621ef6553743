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
      (await as.callTool({
        name: 'get_budget_variance',
        arguments: { response_format: 'detailed', ...args },
      })) as unknown as {
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

interface Ranked {
  company_id: string;
  budget_name: string;
  period: string;
  budget: string | null;
  actual: string | null;
  variance: string | null;
  variance_pct: string | null;
  reason: string | null;
  in_firm_currency: { budget: string | null; actual: string | null; variance: string | null };
}
interface Ranking {
  count: number;
  results: Ranked[];
  ranking: { category: string; miss_means: string; budget_rule: string };
}

for (const dialect of dialects) {
  describe(`get_budget_variance without a company: every company ranked (${dialect.name}) @db`, () => {
    let t: TestDb;
    let fx: Fixture;
    let server: RunningServer;
    let client: Client;
    let restricted: Client;

    const rank = async (args: Record<string, unknown>, as = () => client) => {
      const res = (await as().callTool({
        name: 'get_budget_variance',
        arguments: { response_format: 'detailed', ...args },
      })) as unknown as {
        isError?: boolean;
        structuredContent: Ranking;
        content: { text: string }[];
      };
      expect(res.isError ?? false, res.content[0]?.text).to.equal(false);
      return res.structuredContent;
    };

    async function budget(name: string, companyId: string, createdAt: string): Promise<string> {
      const id = newId();
      await t.db('budgets').insert({
        id,
        firm_id: fx.firmA.id,
        company_id: companyId,
        name,
        date: '2025-01-01',
        color: '#ffffff',
        description: '',
        created_at: createdAt,
      });
      return id;
    }

    const MONTHS = ['2025-01-31', '2025-02-28', '2025-03-31', '2025-04-30'];
    // Revenue per company: budgets (by name) and actuals, month by month; null is no row.
    const plan = {
      acme: {
        budgets: { Plan: [100, 100, 100, 100], Reforecast: [90, 90, 90, null] },
        actual: [80, 85, 70, null],
      },
      beta: { budgets: { Plan: [200, 200, 200, null] }, actual: [210, 190, 220, null] },
      gamma: { budgets: { Plan: [50, 50, null, null] }, actual: [40, null, null, null] },
    } as const;

    before(async () => {
      t = await dialect.open();
      fx = await buildFixture(t.db);
      for (const [key, spec] of Object.entries(plan)) {
        const companyId = fx.companies[key as keyof typeof plan].id;
        const base = { firmId: fx.firmA.id, companyId, category: 'revenue' };
        // Both budgets share one date; the reforecast was created later, so it counts where both have figures.
        for (const [name, values] of Object.entries(spec.budgets)) {
          const created = name === 'Plan' ? '2025-01-01T00:00:00.000Z' : '2025-06-01T00:00:00.000Z';
          const id = await budget(name, companyId, created);
          for (const [i, v] of values.entries())
            if (v !== null)
              await insertDatum(t.db, { ...base, date: MONTHS[i], value: String(v), budgetId: id });
        }
        for (const [i, v] of spec.actual.entries())
          if (v !== null) await insertDatum(t.db, { ...base, date: MONTHS[i], value: String(v) });
      }
      const burnBudget = await budget('Burn plan', fx.companies.beta.id, '2025-01-01T00:00:00.000Z');
      const burn = {
        firmId: fx.firmA.id,
        companyId: fx.companies.beta.id,
        category: 'net_burn',
        date: '2025-03-31',
      };
      await insertDatum(t.db, { ...burn, value: '100', budgetId: burnBudget });
      await insertDatum(t.db, { ...burn, value: '150' });
      const acmeBurn = await budget('Burn plan', fx.companies.acme.id, '2025-01-01T00:00:00.000Z');
      const burnA = { ...burn, companyId: fx.companies.acme.id };
      await insertDatum(t.db, { ...burnA, value: '100', budgetId: acmeBurn });
      await insertDatum(t.db, { ...burnA, value: '90' });
      const cash = { firmId: fx.firmA.id, companyId: fx.companies.acme.id, category: 'cash_in_bank' };
      await insertDatum(t.db, {
        ...cash,
        cadence: 'point_in_time',
        date: '2025-03-31',
        value: '1000',
        budgetId: acmeBurn,
      });
      await insertDatum(t.db, { ...cash, cadence: 'point_in_time', date: '2025-01-31', value: '900' });
      await insertDatum(t.db, { ...cash, cadence: 'point_in_time', date: '2025-03-31', value: '950' });
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

    /** The expected row, recomputed from the inserted numbers: the latest month where budget and actual both exist. */
    function expectedMonth(key: keyof typeof plan) {
      const spec = plan[key];
      const counted = (i: number) =>
        'Reforecast' in spec.budgets && spec.budgets.Reforecast[i] !== null
          ? spec.budgets.Reforecast[i]!
          : spec.budgets.Plan[i];
      const i = [3, 2, 1, 0].find((m) => counted(m) !== null && spec.actual[m] !== null)!;
      const budgetValue = counted(i)!;
      const variance = spec.actual[i]! - budgetValue;
      return { period: MONTHS[i]!.slice(0, 7), variance, pct: ((variance / budgetValue) * 100).toFixed(2) };
    }

    it('ranks every company by the variance % of its latest complete month, largest miss first', async () => {
      const res = await rank({});
      expect(res.ranking).to.include({
        category: 'revenue',
        miss_means: 'actual below budget',
      });
      const expected = (['acme', 'beta', 'gamma'] as const)
        .map((k) => ({ id: fx.companies[k].id, ...expectedMonth(k) }))
        .sort((a, b) => Number(a.pct) - Number(b.pct));
      expect(
        res.results.map((r) => [r.company_id, r.period, Number(r.variance), r.variance_pct]),
      ).to.deep.equal(expected.map((e) => [e.id, e.period, e.variance, e.pct]));
      const beat = await rank({ order: 'beat_first' });
      expect(beat.results.map((r) => r.company_id)).to.deep.equal(expected.map((e) => e.id).reverse());
      const paged = await rank({ per_page: 1, page: 2 });
      expect(paged.results.map((r) => r.company_id)).to.deep.equal([expected[1]!.id]);
    });

    it('counts the budget with the latest date, then the latest created, where two budgets cover one period', async () => {
      const res = await rank({});
      const acme = res.results.find((r) => r.company_id === fx.companies.acme.id)!;
      expect(acme).to.include({ budget_name: 'Reforecast', budget: '90', actual: '70' });
      // The firm's currency is the company's (USD): the same amounts.
      expect(acme.in_firm_currency).to.deep.equal({ budget: '90', actual: '70', variance: '-20' });
      expect(res.ranking.budget_rule).to.match(/latest budget date.*latest created/);
    });

    it('rolls budgets and actuals up to quarters: flows summed, stocks at quarter end, incomplete quarters last', async () => {
      const res = await rank({ period: 'quarter' });
      const sum = (xs: readonly (number | null)[]) =>
        xs.slice(0, 3).reduce<number>((t, x) => t + (x ?? 0), 0);
      const acme = res.results.find((r) => r.company_id === fx.companies.acme.id)!;
      const acmeBudget = sum(plan.acme.budgets.Reforecast);
      expect(acme).to.include({
        period: '2025-Q1',
        budget: String(acmeBudget),
        actual: String(sum(plan.acme.actual)),
      });
      expect(acme.variance_pct).to.equal(
        (((sum(plan.acme.actual) - acmeBudget) / acmeBudget) * 100).toFixed(2),
      );
      const gamma = res.results.at(-1)!;
      expect(gamma.company_id).to.equal(fx.companies.gamma.id);
      expect(gamma.variance_pct).to.equal(null);
      expect(gamma.reason).to.be.a('string');
      const cash = await rank({ period: 'quarter', category: 'cash_in_bank' });
      expect(cash.results[0]).to.include({
        budget: '1000',
        actual: '950',
        variance: '-50',
        variance_pct: '-5.00',
      });
    });

    it('puts overspending first for a cost such as net_burn', async () => {
      const res = await rank({ category: 'net_burn' });
      expect(res.ranking.miss_means).to.equal('actual above budget');
      expect(res.results.map((r) => [r.company_id, r.variance_pct])).to.deep.equal([
        [fx.companies.beta.id, '50.00'],
        [fx.companies.acme.id, '-10.00'],
      ]);
    });

    it('ranks only the companies the caller can see, and refuses per-company filters without a company', async () => {
      const res = await rank({}, () => restricted);
      expect(res.results.map((r) => r.company_id)).to.deep.equal([fx.companies.acme.id]);
      const bad = await client.callTool({ name: 'get_budget_variance', arguments: { budget_id: 'x' } });
      expect(bad.isError).to.equal(true);
      expect((bad.content as { text: string }[])[0]!.text).to.contain('budget_id');
    });

    it('list_budgets items carry the company id', async () => {
      const res = await api(server.url, `/v1/budgets/?company_id=${fx.companies.beta.id}`, {
        token: fx.admin.rest,
      });
      expect(res.status).to.equal(200);
      expect(res.body.results).to.have.length(2);
      for (const b of res.body.results) expect(b.company_id).to.equal(fx.companies.beta.id);
    });
  });
}
