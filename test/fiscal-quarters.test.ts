import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { expect } from 'chai';
import { standardCategoryId } from '../core/categories.ts';
import type { RunningServer } from '../server/http.ts';
import { insertCustomCategory, insertDatum } from './helpers/datums.ts';
import { dialects, type TestDb } from './helpers/db.ts';
import { buildFixture, type Fixture } from './helpers/fixture.ts';
import { mcpClient } from './helpers/mcp.ts';
import { startTestServer } from './helpers/server.ts';

interface PeriodPoint {
  period: string;
  span?: { from: string; to: string };
  value: string | null;
  complete: boolean;
  growth: string | null;
  reason?: string | null;
}
interface Answer {
  quarters: string;
  definitions?: string;
  series: Record<string, { periods: PeriodPoint[]; points?: { month: string; datum_id?: string }[] }>;
}
interface ConciseAnswer {
  quarters: string;
  columns: Record<string, string>;
  series: Record<string, { periods: unknown[][]; null_because?: Record<string, string> }>;
}

// A company whose fiscal year ends 31 January reports revenue per fiscal quarter (rows dated at the
// quarter's end: Nov–Jan, Feb–Apr, May–Jul, Aug–Oct) and cash every month.
const QUARTER_ENDS = ['2025-01-31', '2025-04-30', '2025-07-31', '2025-10-31'];
const REVENUE = [900, 1000, 1150, 1300];
const CASH_MONTHS = Array.from({ length: 12 }, (_, i) => {
  const m = 10 + i; // 2024-11 … 2025-10 as months since 2024-01
  const year = 2024 + Math.floor(m / 12);
  const month = (m % 12) + 1;
  const last = new Date(Date.UTC(year, month, 0)).getUTCDate();
  return `${year}-${String(month).padStart(2, '0')}-${last}`;
});
const CASH = CASH_MONTHS.map((_, i) => 9000 - i * 250);

for (const dialect of dialects) {
  describe(`quarters of a company whose fiscal year ends 31 January (${dialect.name}) @db`, () => {
    let t: TestDb;
    let fx: Fixture;
    let server: RunningServer;
    let client: Client;

    before(async () => {
      t = await dialect.open();
      fx = await buildFixture(t.db);
      await t.db('companies').where({ id: fx.companies.beta.id }).update({ fiscal_year_end: '01-31' });
      const base = { firmId: fx.firmA.id, companyId: fx.companies.beta.id };
      for (const [i, date] of QUARTER_ENDS.entries())
        await insertDatum(t.db, {
          ...base,
          category: 'revenue',
          cadence: 'quarter',
          date,
          value: String(REVENUE[i]),
        });
      for (const [i, date] of CASH_MONTHS.entries())
        await insertDatum(t.db, {
          ...base,
          category: 'cash_in_bank',
          cadence: 'point_in_time',
          date,
          value: String(CASH[i]),
        });
      server = await startTestServer(t.db);
      client = await mcpClient(server.url, fx.admin.pat);
    });
    after(async () => {
      await client?.close();
      await server?.close();
      await t?.drop();
    });

    const performance = async (args: Record<string, unknown>): Promise<Answer> => {
      const res = await client.callTool({
        name: 'get_company_performance',
        arguments: { company_id: fx.companies.beta.id, months: 12, period: 'quarter', ...args },
      });
      expect(res.isError ?? false, JSON.stringify(res.content)).to.equal(false);
      return res.structuredContent as unknown as Answer;
    };
    const at = (a: Answer, category: string, period: string) =>
      a.series[category]!.periods.find((p) => p.period === period)!;

    it('uses calendar quarters by default and never counts a fiscal-quarter row in a calendar quarter', async () => {
      const answer = (await performance({})) as unknown as ConciseAnswer;
      expect(answer.quarters).to.equal('calendar');
      // The firm and the company both use USD: no converted values.
      expect(answer.columns.periods).to.equal('period, value, complete, growth, yoy_growth');
      const revenue = answer.series.revenue!;
      expect(revenue.periods).to.deep.equal(
        ['2024-Q4', '2025-Q1', '2025-Q2', '2025-Q3', '2025-Q4'].map((q) => [q, null, false, null, null]),
      );
      for (const q of ['2024-Q4', '2025-Q1', '2025-Q3'])
        expect(revenue.null_because![q], q).to.match(/quarterly row dated .* covers/);
      // Cash at the calendar quarter end (2025-09 is index 10); 2025-Q4 has no December value.
      const cash = answer.series.cash_in_bank!.periods;
      expect(cash[3]!.slice(0, 3)).to.deep.equal(['2025-Q3', String(CASH[10]), true]);
      expect(cash[4]!.slice(0, 3)).to.deep.equal(['2025-Q4', String(CASH[11]), false]);
    });

    it('uses fiscal quarters on request, each stored row in the quarter it covers, complete in every series', async () => {
      const answer = await performance({ fiscal: true, response_format: 'detailed' });
      expect(answer.quarters).to.equal('fiscal (year ends 31 Jan)');
      const revenue = answer.series.revenue!.periods;
      expect(revenue.map((p) => [p.period, p.span, p.value, p.complete])).to.deep.equal([
        ['FY2025-Q4', { from: '2024-11', to: '2025-01' }, String(REVENUE[0]), true],
        ['FY2026-Q1', { from: '2025-02', to: '2025-04' }, String(REVENUE[1]), true],
        ['FY2026-Q2', { from: '2025-05', to: '2025-07' }, String(REVENUE[2]), true],
        ['FY2026-Q3', { from: '2025-08', to: '2025-10' }, String(REVENUE[3]), true],
      ]);
      expect(at(answer, 'revenue', 'FY2026-Q3').growth).to.equal(
        (((REVENUE[3]! - REVENUE[2]!) / REVENUE[2]!) * 100).toFixed(2),
      );
      // Cash at each fiscal quarter's last month: 2025-01, -04, -07, -10 are indexes 2, 5, 8, 11.
      const cash = answer.series.cash_in_bank!.periods;
      expect(cash.map((p) => [p.period, p.value, p.complete])).to.deep.equal([
        ['FY2025-Q4', String(CASH[2]), true],
        ['FY2026-Q1', String(CASH[5]), true],
        ['FY2026-Q2', String(CASH[8]), true],
        ['FY2026-Q3', String(CASH[11]), true],
      ]);
    });

    it('rolls fiscal quarters into the fiscal year they belong to', async () => {
      const answer = await performance({
        fiscal: true,
        period: 'year',
        months: 12,
        response_format: 'detailed',
      });
      const years = answer.series.revenue!.periods;
      expect(years.map((p) => [p.period, p.value, p.complete])).to.deep.equal([
        ['FY2025', String(REVENUE[0]), false],
        ['FY2026', String(REVENUE[1]! + REVENUE[2]! + REVENUE[3]!), false],
      ]);
    });

    it('answers concisely without definitions or sources, and limits the answer to the categories asked', async () => {
      const answer = await performance({ categories: ['Revenue', 'cash_in_bank'] });
      expect(answer.definitions).to.equal(undefined);
      expect(Object.keys(answer.series)).to.deep.equal(['revenue', 'cash_in_bank']);
      const text = JSON.stringify(answer);
      expect(text).not.to.include('datum_id');
      expect(text).not.to.include('"source"');
      const monthly = await performance({ period: 'month', response_format: 'detailed' });
      expect(monthly.definitions).to.be.a('string');
      expect(monthly.series.cash_in_bank!.points![0]!.datum_id).to.be.a('string');
    });

    it('gives the financial summary concisely: each figure its value and period, no sources or definitions', async () => {
      const res = await client.callTool({
        name: 'get_company_financial_summary',
        arguments: { company_id: fx.companies.beta.id },
      });
      const summary = res.structuredContent as Record<string, unknown>;
      expect(summary.definitions).to.equal(undefined);
      expect(JSON.stringify(summary)).not.to.include('datum_ids');
      // Four fiscal quarters, Nov 2024 to Oct 2025, are the trailing twelve months.
      expect(summary.ttm_revenue).to.deep.equal({
        value: REVENUE.reduce((a, b) => a + b, 0).toFixed(2),
        period: '2024-11/2025-10',
      });
      expect((summary.latest as Record<string, unknown>).cash_in_bank).to.deep.equal({
        value: String(CASH[11]),
        date: CASH_MONTHS[11],
      });
    });

    it('takes categories by their category ids, as they are listed', async () => {
      const answer = await performance({
        categories: [standardCategoryId('cash_in_bank'), standardCategoryId('revenue')],
      });
      expect(Object.keys(answer.series)).to.deep.equal(['revenue', 'cash_in_bank']);
    });

    it('refuses a custom metric id, naming it as given: the tool charts standard categories only', async () => {
      const id = await insertCustomCategory(t.db, fx.firmA.id, 'Pipeline', 'currency');
      const res = await client.callTool({
        name: 'get_company_performance',
        arguments: { company_id: fx.companies.beta.id, categories: [standardCategoryId('arr'), id] },
      });
      expect(res.isError).to.equal(true);
      const text = JSON.stringify(res.content);
      expect(text).to.include(`unknown category \\"${id}\\"`);
      expect(text).to.include('this tool charts revenue, arr');
    });

    it('refuses a category the tool does not chart, naming the valid ones', async () => {
      const res = await client.callTool({
        name: 'get_company_performance',
        arguments: { company_id: fx.companies.beta.id, categories: ['widgets'] },
      });
      expect(res.isError).to.equal(true);
      expect(JSON.stringify(res.content)).to.include('unknown category \\"widgets\\"');
    });
  });
}
