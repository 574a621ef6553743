import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { expect } from 'chai';
import type { RunningServer } from '../server/http.ts';
import { insertDatum } from './helpers/datums.ts';
import { dialects, type TestDb } from './helpers/db.ts';
import { buildFixture, type Fixture } from './helpers/fixture.ts';
import { mcpClient } from './helpers/mcp.ts';
import { startTestServer } from './helpers/server.ts';

interface PeriodPoint {
  period: string;
  value: string | null;
  complete: boolean;
  growth: string | null;
  yoy_growth: string | null;
}
type Series = Record<string, { points: unknown[]; periods: PeriodPoint[] }>;

// Month ends of 2024-Q1 and of 2025 up to May, with revenue, gross margin (a fraction) and cash.
const MONTHS = [
  '2024-01-31',
  '2024-02-29',
  '2024-03-31',
  '2025-01-31',
  '2025-02-28',
  '2025-03-31',
  '2025-04-30',
  '2025-05-31',
];
const REVENUE = [80, 90, 100, 100, 120, 130, 140, 150];
const MARGIN = [0.5, 0.5, 0.5, 0.6, 0.5, 0.4, 0.7, 0.7];
const CASH = [5000, 4800, 4600, 4000, 3900, 3700, 3600, 3500];

for (const dialect of dialects) {
  describe(`get_company_performance by quarter and year (${dialect.name}) @db`, () => {
    let t: TestDb;
    let fx: Fixture;
    let server: RunningServer;
    let client: Client;

    before(async () => {
      t = await dialect.open();
      fx = await buildFixture(t.db);
      const base = { firmId: fx.firmA.id, companyId: fx.companies.beta.id };
      for (const [i, date] of MONTHS.entries()) {
        await insertDatum(t.db, { ...base, category: 'revenue', date, value: String(REVENUE[i]) });
        await insertDatum(t.db, {
          ...base,
          category: 'gross_margin',
          date,
          value: String(MARGIN[i]),
          currency: null,
        });
        await insertDatum(t.db, {
          ...base,
          category: 'cash_in_bank',
          cadence: 'point_in_time',
          date,
          value: String(CASH[i]),
        });
      }
      server = await startTestServer(t.db);
      client = await mcpClient(server.url, fx.admin.pat);
    });
    after(async () => {
      await client?.close();
      await server?.close();
      await t?.drop();
    });

    const performance = async (args: Record<string, unknown>) => {
      const res = await client.callTool({
        name: 'get_company_performance',
        arguments: { company_id: fx.companies.beta.id, response_format: 'detailed', ...args },
      });
      expect(res.isError ?? false, JSON.stringify(res.content)).to.equal(false);
      return (res.structuredContent as { series: Series }).series;
    };
    const at = (series: Series, category: string, period: string) =>
      series[category]!.periods.find((p) => p.period === period)!;
    const sum = (xs: number[]) => xs.reduce((a, b) => a + b, 0);
    // Indexes of 2024-Q1, 2025-Q1 and the two months of 2025-Q2 in MONTHS.
    const Q1_24 = [0, 1, 2];
    const Q1_25 = [3, 4, 5];

    it('sums flows per quarter and flags a quarter with fewer than 3 months as incomplete', async () => {
      const series = await performance({ months: 24, period: 'quarter' });
      expect(series.revenue!.points).to.deep.equal([]);
      const q1 = at(series, 'revenue', '2025-Q1');
      expect(q1).to.include({ value: String(sum(Q1_25.map((i) => REVENUE[i]!))), complete: true });
      const q2 = at(series, 'revenue', '2025-Q2');
      expect(q2).to.include({ value: String(REVENUE[6]! + REVENUE[7]!), complete: false, growth: null });
      const before = sum(Q1_24.map((i) => REVENUE[i]!));
      const now = sum(Q1_25.map((i) => REVENUE[i]!));
      expect(q1.yoy_growth).to.equal((((now - before) / before) * 100).toFixed(2));
    });

    it('takes stocks at the quarter end and recomputes gross margin as gross profit over revenue', async () => {
      const series = await performance({ months: 12, period: 'quarter' });
      expect(at(series, 'cash_in_bank', '2025-Q1')).to.include({ value: String(CASH[5]), complete: true });
      expect(at(series, 'cash_in_bank', '2025-Q2')).to.include({ value: String(CASH[7]), complete: false });
      const profit = sum(Q1_25.map((i) => MARGIN[i]! * REVENUE[i]!));
      const revenue = sum(Q1_25.map((i) => REVENUE[i]!));
      expect(at(series, 'gross_margin', '2025-Q1')).to.include({
        value: ((profit / revenue) * 100).toFixed(2),
        complete: true,
      });
    });

    it('rolls up calendar years, and keeps monthly points by default', async () => {
      const series = await performance({ months: 24, period: 'year' });
      expect(at(series, 'revenue', '2025')).to.include({
        value: String(sum(REVENUE.slice(3))),
        complete: false,
      });
      const monthly = await performance({ months: 3 });
      expect(monthly.revenue!.periods).to.deep.equal([]);
      expect(monthly.revenue!.points).to.have.length(3);
    });
  });
}
