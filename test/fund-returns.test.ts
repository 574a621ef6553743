import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { expect } from 'chai';
import type { Knex } from 'knex';
import { type DatedFlow, xirr, xnpv } from '../core/xirr.ts';
import type { RunningServer } from '../server/http.ts';
import { dialects, type TestDb } from './helpers/db.ts';
import { buildFixture, type Fixture } from './helpers/fixture.ts';
import { mcpClient } from './helpers/mcp.ts';
import { assertReference } from './helpers/reference.ts';
import { api, startTestServer } from './helpers/server.ts';

const T0 = '2026-01-01T00:00:00.000Z';
const AS_OF = '2025-01-01';
const METRICS = '/beta/investment/metrics/get/';
const FUND_B = 'fund-returns-b';

// Hand computation (firm currency USD; EUR→USD 1.10 from 2023-01-01, 1.20 from 2024-06-01; GBP→USD 1.25
// from 2023-06-01), as of 2025-01-01:
// Fund A
//   Acme (no exit): 100,000 shares bought 2022-01-01 for 1,000,000 USD; latest price 20 USD (2024-01-01
//     round, fully diluted 1,200,000, pre-money 20,000,000, size 4,000,000) → fair value 2,000,000, MOIC 2,
//     IRR = 2^(365/1096) − 1 (2022-01-01 → 2025-01-01 is 1,096 days).
//   Beta (full exit): 50,000 shares bought 2022-06-01 for 500,000 USD, all sold 2024-06-01 for 1,500,000 USD →
//     fair value 0, MOIC 3, IRR = 3^(365/731) − 1.
//   Gamma (written off): 400,000 USD on 2023-01-01; fair-value override 0 on 2024-06-30 → MOIC 0, no IRR.
//   Fund: paid-in 1,900,000, realised 1,500,000, NAV 2,000,000 → TVPI 35/19, DPI 15/19, RVPI 20/19.
// Fund B
//   Acme (convertible not converted): SAFE of 200,000 EUR on 2023-07-01 at 1.10 = 220,000 USD, held at cost
//     → fair value 220,000, MOIC 1, IRR 0.
//   Gamma (several currencies): 10,000 shares for 100,000 EUR on 2023-01-01 (1.10 → 110,000 USD); 5,000 sold
//     2024-07-01 for 80,000 GBP (1.25 → 100,000 USD); 5,000 left × latest price 10 EUR at 1.20 = 60,000 USD
//     → MOIC 160,000 / 110,000.
//   Beta (converted convertible): a 100,000 USD note of 2023-02-01 converts on 2024-01-01 into 20,000 shares
//     (the certificate records the same 100,000, which is not new money) × 10 USD → fair value 200,000.
//   Fund: paid-in 430,000, realised 100,000, NAV 480,000 → TVPI 580/430.
const ACME_A_IRR = 2 ** (365 / 1096) - 1;
const BETA_A_IRR = 3 ** (365 / 731) - 1;

function money(prefix: string, value: string | null, currency: string | null) {
  return {
    [`${prefix}_value`]: value,
    [`${prefix}_currency`]: currency,
    [`${prefix}_fx_rate`]: null,
    [`${prefix}_is_custom_rate`]: value === null ? null : false,
  };
}
const detail = (value: string, currency: string) => ({
  value,
  currency,
  fx_rate: null,
  is_custom_rate: false,
});

async function seedReturns(db: Knex, fx: Fixture): Promise<void> {
  const A = fx.firmA.id;
  const { acme, beta, gamma } = fx.companies;
  await db('fx_rates').insert([
    { id: 'r1', firm_id: A, from_currency: 'EUR', to_currency: 'USD', date: '2023-01-01', rate: '1.10' },
    { id: 'r2', firm_id: A, from_currency: 'EUR', to_currency: 'USD', date: '2024-06-01', rate: '1.20' },
    { id: 'r3', firm_id: A, from_currency: 'GBP', to_currency: 'USD', date: '2023-06-01', rate: '1.25' },
  ]);
  await db('funds').insert({
    id: FUND_B,
    firm_id: A,
    name: 'Returns Fund B',
    size: '10000000',
    vintage: 2023,
    currency: 'USD',
    created_at: T0,
  });
  const round = (id: string, company: string, date: string, row: Record<string, unknown>) => ({
    id,
    firm_id: A,
    company_id: company,
    name: id,
    closing_date: date,
    round_size_converted_value: null,
    fully_diluted_shares: null,
    is_crypto: false,
    created_at: T0,
    ...money('pre_money', null, null),
    ...money('round_size', null, null),
    ...row,
  });
  await db('financings').insert([
    round('f-acme-1', acme.id, '2022-01-01', {
      fully_diluted_shares: '1000000',
      ...money('pre_money', '9000000', 'USD'),
      ...money('round_size', '1000000', 'USD'),
    }),
    round('f-acme-2', acme.id, '2024-01-01', {
      fully_diluted_shares: '1200000',
      ...money('pre_money', '20000000', 'USD'),
      ...money('round_size', '4000000', 'USD'),
    }),
    round('f-beta-1', beta.id, '2022-06-01', {}),
    round('f-gamma-1', gamma.id, '2023-01-01', {}),
  ]);
  const shareClass = (id: string, company: string, financing: string, price: string, currency: string) => ({
    id,
    firm_id: A,
    company_id: company,
    financing_id: financing,
    purchase_type: 'primary',
    type: 'preferred',
    name: id,
    include_in_fair_value: true,
    created_at: T0,
    ...money('price_per_share', price, currency),
  });
  await db('share_classes').insert([
    shareClass('c-acme-1', acme.id, 'f-acme-1', '10', 'USD'),
    shareClass('c-acme-2', acme.id, 'f-acme-2', '20', 'USD'),
    shareClass('c-beta-1', beta.id, 'f-beta-1', '10', 'USD'),
    shareClass('c-gamma-1', gamma.id, 'f-gamma-1', '10', 'EUR'),
  ]);
  const security = (
    id: string,
    company: string,
    fund: string,
    type: string,
    date: string,
    details: Record<string, unknown>,
  ) => ({
    id,
    firm_id: A,
    company_id: company,
    fund_id: fund,
    financing_id: null,
    share_class_id: null,
    type,
    issue_date: date,
    details: JSON.stringify(details),
    created_at: T0,
  });
  await db('securities').insert([
    security('s-acme-a', acme.id, fx.fundA, 'certificate', '2022-01-01', {
      investment_amount: detail('1000000', 'USD'),
      shares: '100000',
    }),
    security('s-beta-a', beta.id, fx.fundA, 'certificate', '2022-06-01', {
      investment_amount: detail('500000', 'USD'),
      shares: '50000',
    }),
    security('s-gamma-a', gamma.id, fx.fundA, 'certificate', '2023-01-01', {
      investment_amount: detail('400000', 'USD'),
      shares: '40000',
    }),
    security('s-acme-b', acme.id, FUND_B, 'convertible', '2023-07-01', {
      convertible_type: 'safe',
      investment_amount: detail('200000', 'EUR'),
    }),
    security('s-gamma-b', gamma.id, FUND_B, 'certificate', '2023-01-01', {
      investment_amount: detail('100000', 'EUR'),
      shares: '10000',
    }),
    security('s-beta-note', beta.id, FUND_B, 'convertible', '2023-02-01', {
      convertible_type: 'convertible_note',
      investment_amount: detail('100000', 'USD'),
    }),
    security('s-beta-conv', beta.id, FUND_B, 'certificate', '2024-01-01', {
      investment_amount: detail('100000', 'USD'),
      shares: '20000',
    }),
  ]);
  const sale = (
    id: string,
    company: string,
    input: string,
    date: string,
    shares: string,
    proceeds: string[],
  ) => ({
    id,
    firm_id: A,
    company_id: company,
    input_security_id: input,
    output_security_id: null,
    date,
    event: 'sale',
    shares,
    ...money('investment_amount', null, null),
    ...money('proceeds', proceeds[0]!, proceeds[1]!),
    created_at: T0,
  });
  await db('transactions').insert([
    sale('t-beta', beta.id, 's-beta-a', '2024-06-01', '50000', ['1500000', 'USD']),
    sale('t-gamma', gamma.id, 's-gamma-b', '2024-07-01', '5000', ['80000', 'GBP']),
    {
      ...sale('t-beta-conv', beta.id, 's-beta-note', '2024-01-01', '20000', ['0', 'USD']),
      event: 'conversion',
      output_security_id: 's-beta-conv',
      ...money('investment_amount', '100000', 'USD'),
      ...money('proceeds', null, null),
    },
  ]);
  await fx.repos.capTable.upsertFairValueOverride(
    A,
    { company_id: gamma.id, fund_id: fx.fundA, date: '2024-06-30', fair_value: detail('0', 'USD') },
    T0,
  );
}

interface Flow {
  amount: string;
  date: string;
  kind: string;
}

/** Each result's IRR is the XIRR of its own cash flows to 6 decimals: their NPV changes sign within a unit of the 6th. */
function expectIrrOfOwnFlows(irr: number | null, flows: Flow[]): void {
  if (irr === null) return;
  expect(Number(irr.toFixed(6))).to.equal(irr);
  const dated: DatedFlow[] = flows.map((f) => ({ amount: Number(f.amount), date: f.date }));
  const npv = (rate: number) => {
    const v = xnpv(rate, dated);
    return Math.abs(v) < presentSize(rate, dated) * 1e-9 ? 0 : v;
  };
  expect(npv(irr - 1e-6) * npv(irr + 1e-6)).to.be.at.most(0);
}

/** The sum of the flows' discounted sizes: what a float NPV's rounding error is relative to. */
function presentSize(rate: number, flows: readonly DatedFlow[]): number {
  return xnpv(
    rate,
    flows.map((f) => ({ amount: Math.abs(f.amount), date: f.date })),
  );
}

describe('xirr', () => {
  it('matches the closed form of one investment and one return', () => {
    const r = xirr([
      { amount: -1000, date: '2020-01-01' },
      { amount: 2000, date: '2023-01-01' },
    ]);
    expect(r.rate).to.be.closeTo(2 ** (365 / 1096) - 1, 1e-9);
  });

  it('is null with a reason when the flows never change sign', () => {
    const r = xirr([
      { amount: -1000, date: '2020-01-01' },
      { amount: -10, date: '2021-01-01' },
    ]);
    expect(r.rate).to.equal(null);
    expect(r.reason).to.match(/sign change/);
  });

  it('finds a near-total loss and a hundredfold gain in a week, where Newton from 10 % overshoots', () => {
    const loss = xirr([
      { amount: -1000, date: '2020-01-01' },
      { amount: 0.1, date: '2022-01-01' },
    ]);
    expect(loss.rate).to.be.a('number');
    const gain = xirr([
      { amount: -1, date: '2020-01-01' },
      { amount: 100, date: '2020-01-08' },
    ]);
    expect(gain.rate).to.be.a('number');
    for (const [r, flows] of [
      [loss.rate!, [-1000, 0.1, '2022-01-01']],
      [gain.rate!, [-1, 100, '2020-01-08']],
    ] as const) {
      const npv = xnpv(r, [
        { amount: flows[0], date: '2020-01-01' },
        { amount: flows[1], date: flows[2] },
      ]);
      expect(Math.abs(npv)).to.be.below(1e-6 * Math.abs(flows[0]));
    }
  });

  it('property: for random flows with a sign change, the rate found makes the NPV 0', () => {
    let seed = 12345;
    const rand = () => {
      seed = (seed * 1103515245 + 12345) % 2 ** 31;
      return seed / 2 ** 31;
    };
    for (let n = 0; n < 300; n++) {
      const flows: DatedFlow[] = [];
      const count = 2 + Math.floor(rand() * 8);
      for (let i = 0; i < count; i++) {
        const day = new Date(Date.UTC(2015, 0, 1) + Math.floor(rand() * 3650) * 86_400_000);
        flows.push({ amount: (rand() - 0.6) * 10 ** (1 + rand() * 6), date: day.toISOString().slice(0, 10) });
      }
      flows.push({ amount: -1000, date: '2014-06-01' }, { amount: 10 + rand() * 5000, date: '2025-06-01' });
      const r = xirr(flows);
      if (r.rate === null) continue;
      expect(Math.abs(xnpv(r.rate, flows)), JSON.stringify(flows)).to.be.below(
        presentSize(r.rate, flows) * 1e-8,
      );
    }
  });
});

for (const dialect of dialects) {
  describe(`fund returns: get_investment_metrics and get_fund_performance (${dialect.name}) @db`, () => {
    let t: TestDb;
    let fx: Fixture;
    let server: RunningServer;
    let mcp: Client;

    before(async () => {
      t = await dialect.open();
      fx = await buildFixture(t.db);
      await seedReturns(t.db, fx);
      server = await startTestServer(t.db);
      mcp = await mcpClient(server.url, fx.admin.pat);
    });
    after(async () => {
      await mcp?.close();
      await server?.close();
      await t?.drop();
    });

    const metrics = async (body: unknown, token = fx.admin.rest) => {
      const res = await api(server.url, METRICS, { method: 'POST', token, body });
      expect(res.status, JSON.stringify(res.body)).to.equal(200);
      return res.body as {
        as_of_date: string;
        metrics: (Record<string, unknown> & { company_id: string; irr: number | null; cash_flows: Flow[] })[];
      };
    };
    const performance = async (query: string, token = fx.admin.rest) => {
      const res = await api(server.url, `/v1/funds/performance/?${query}`, { token });
      expect(res.status, JSON.stringify(res.body)).to.equal(200);
      // biome-ignore lint/suspicious/noExplicitAny: tests inspect arbitrary JSON
      return res.body as { as_of_date: string; funds: any[] };
    };
    const byCompany = <T extends { company_id: string }>(list: T[], id: string): T =>
      list.find((m) => m.company_id === id)!;

    it('POST /beta/investment/metrics/get/ answers the reference MetricsResponse', async () => {
      const body = await metrics({
        company_ids: [fx.companies.acme.id, fx.companies.beta.id, fx.companies.gamma.id],
        as_of_date: AS_OF,
      });
      assertReference('investment', 'MetricsResponse', body);
      expect(body.as_of_date).to.equal(AS_OF);
      expect(body.metrics.map((m) => m.company_id)).to.have.members([
        fx.companies.acme.id,
        fx.companies.beta.id,
        fx.companies.gamma.id,
      ]);
    });

    it('a company with no exit: invested at cost, valued at shares × latest price, across all funds', async () => {
      const { metrics: list } = await metrics({ company_ids: [fx.companies.acme.id], as_of_date: AS_OF });
      const acme = byCompany(list, fx.companies.acme.id);
      // Fund A 1,000,000 + fund B's SAFE 220,000; fair value 2,000,000 + 220,000 at cost.
      expect(Number(acme.investment_amount)).to.equal(1_220_000);
      expect(Number(acme.fair_value)).to.equal(2_220_000);
      expect(Number(acme.realized_value)).to.equal(0);
      expect(Number(acme.moic)).to.be.closeTo(2_220_000 / 1_220_000, 5e-5);
      expect(acme.total_shares_owned).to.equal('100000');
      expect(acme.ownership).to.be.closeTo(100_000 / 1_200_000, 5e-7);
      expect(Number(acme.latest_price_per_share)).to.equal(20);
      expect(Number(acme.pre_money_valuation)).to.equal(20_000_000);
      expect(Number(acme.post_money_valuation)).to.equal(24_000_000);
      expect(acme.fully_diluted_shares).to.equal('1200000');
      expect(acme.currency).to.equal('USD');
    });

    it('fund_ids narrows to those funds: a convertible not yet converted is held at cost, IRR 0', async () => {
      const { metrics: list } = await metrics({
        company_ids: [fx.companies.acme.id],
        fund_ids: [FUND_B],
        as_of_date: AS_OF,
      });
      const acme = byCompany(list, fx.companies.acme.id);
      expect(Number(acme.investment_amount)).to.equal(220_000);
      expect(Number(acme.fair_value)).to.equal(220_000);
      expect(Number(acme.moic)).to.equal(1);
      expect(acme.irr).to.be.closeTo(0, 5e-7);
      expect(acme.total_shares_owned).to.equal('0');
      const invest = acme.cash_flows.find((f) => f.kind === 'investment') as Flow & Record<string, string>;
      expect(invest).to.include({ value: '200000', currency: 'EUR', fx_rate: 1.1, date: '2023-07-01' });
      expect(Number(invest.amount)).to.equal(-220_000);
    });

    it('a full exit: realised value from the sale, nothing left, IRR from the dated flows', async () => {
      const { metrics: list } = await metrics({
        company_ids: [fx.companies.beta.id],
        fund_ids: [fx.fundA],
        as_of_date: AS_OF,
      });
      const beta = byCompany(list, fx.companies.beta.id);
      expect(Number(beta.realized_value)).to.equal(1_500_000);
      expect(Number(beta.fair_value)).to.equal(0);
      expect(Number(beta.moic)).to.equal(3);
      expect(beta.irr).to.be.closeTo(BETA_A_IRR, 5e-7);
      expect(beta.cash_flows.map((f) => [f.kind, f.date, Number(f.amount)])).to.deep.equal([
        ['investment', '2022-06-01', -500_000],
        ['proceeds', '2024-06-01', 1_500_000],
      ]);
    });

    it('a written-off company: the 0 override wins over shares × price; IRR null with a reason', async () => {
      const { metrics: list } = await metrics({
        company_ids: [fx.companies.gamma.id],
        fund_ids: [fx.fundA],
        as_of_date: AS_OF,
      });
      const gamma = byCompany(list, fx.companies.gamma.id);
      expect(Number(gamma.fair_value)).to.equal(0);
      expect(Number(gamma.moic)).to.equal(0);
      expect(gamma.irr).to.equal(null);
      expect(gamma.irr_note).to.match(/sign change/);
      // Before the override, the same position is worth its shares × price (40,000 × 10 EUR × 1.20).
      const before = await metrics({
        company_ids: [fx.companies.gamma.id],
        fund_ids: [fx.fundA],
        as_of_date: '2024-06-29',
      });
      expect(Number(byCompany(before.metrics, fx.companies.gamma.id).fair_value)).to.equal(480_000);
    });

    it('several currencies: each flow converted at its own date, the fair value at as_of_date', async () => {
      const { metrics: list } = await metrics({
        company_ids: [fx.companies.gamma.id],
        fund_ids: [FUND_B],
        as_of_date: AS_OF,
      });
      const gamma = byCompany(list, fx.companies.gamma.id);
      expect(Number(gamma.investment_amount)).to.equal(110_000);
      expect(Number(gamma.realized_value)).to.equal(100_000);
      expect(Number(gamma.fair_value)).to.equal(60_000);
      expect(Number(gamma.moic)).to.be.closeTo(160_000 / 110_000, 5e-5);
      expect(gamma.cash_flows.map((f) => [f.kind, f.date, Number(f.amount)])).to.deep.equal([
        ['investment', '2023-01-01', -110_000],
        ['proceeds', '2024-07-01', 100_000],
        ['fair_value', AS_OF, 60_000],
      ]);
    });

    it('a converted convertible counts its money once and is valued as the shares it became', async () => {
      const { metrics: list } = await metrics({
        company_ids: [fx.companies.beta.id],
        fund_ids: [FUND_B],
        as_of_date: AS_OF,
      });
      const beta = byCompany(list, fx.companies.beta.id);
      expect(Number(beta.investment_amount)).to.equal(100_000);
      expect(Number(beta.fair_value)).to.equal(200_000);
      expect(beta.total_shares_owned).to.equal('20000');
      expect(beta.cash_flows.map((f) => [f.kind, f.date, Number(f.amount)])).to.deep.equal([
        ['investment', '2023-02-01', -100_000],
        ['fair_value', AS_OF, 200_000],
      ]);
    });

    it('get_fund_performance: per fund paid-in, NAV, TVPI, DPI, RVPI and gross IRR as computed by hand', async () => {
      const { funds } = await performance(`as_of_date=${AS_OF}`);
      const a = funds.find((f) => f.fund_id === fx.fundA);
      expect(Number(a.paid_in_capital)).to.equal(1_900_000);
      expect(Number(a.realized_value)).to.equal(1_500_000);
      expect(Number(a.fair_value)).to.equal(2_000_000);
      expect(Number(a.tvpi)).to.be.closeTo(35 / 19, 5e-5);
      expect(Number(a.moic)).to.be.closeTo(35 / 19, 5e-5);
      expect(Number(a.dpi)).to.be.closeTo(15 / 19, 5e-5);
      expect(Number(a.rvpi)).to.be.closeTo(20 / 19, 5e-5);
      expect(a.gross_irr).to.be.a('number');
      const acme = a.companies.results.find(
        (c: { company_id: string }) => c.company_id === fx.companies.acme.id,
      );
      expect(acme.irr).to.be.closeTo(ACME_A_IRR, 5e-7);
      const b = funds.find((f) => f.fund_id === FUND_B);
      expect(Number(b.paid_in_capital)).to.equal(430_000);
      expect(Number(b.realized_value)).to.equal(100_000);
      expect(Number(b.fair_value)).to.equal(480_000);
      expect(Number(b.tvpi)).to.be.closeTo(580 / 430, 5e-5);
    });

    it('pages the per-company breakdown of a fund', async () => {
      const first = await performance(`fund_id=${fx.fundA}&as_of_date=${AS_OF}&page_size=2`);
      expect(first.funds).to.have.length(1);
      expect(first.funds[0].companies).to.include({ count: 3, page: 1, per_page: 2, has_more: true });
      const second = await performance(`fund_id=${fx.fundA}&as_of_date=${AS_OF}&page_size=2&page=2`);
      expect(second.funds[0].companies).to.include({ has_more: false });
      const names = [...first.funds[0].companies.results, ...second.funds[0].companies.results].map(
        (c: { company_id: string }) => c.company_id,
      );
      expect(names).to.have.members([fx.companies.acme.id, fx.companies.beta.id, fx.companies.gamma.id]);
    });

    it("property: every result's IRR is the XIRR of its own cash_flows", async () => {
      const { metrics: list } = await metrics({
        company_ids: [fx.companies.acme.id, fx.companies.beta.id, fx.companies.gamma.id],
        as_of_date: AS_OF,
      });
      for (const m of list) expectIrrOfOwnFlows(m.irr, m.cash_flows);
      for (const date of ['2023-06-30', '2024-03-31', AS_OF]) {
        const { funds } = await performance(`as_of_date=${date}`);
        for (const f of funds) {
          expectIrrOfOwnFlows(f.gross_irr, f.cash_flows);
          for (const c of f.companies.results) expectIrrOfOwnFlows(c.irr, c.cash_flows);
        }
      }
    });

    it('the MCP tools answer the same figures as REST', async () => {
      const res = await mcp.callTool({
        name: 'get_investment_metrics',
        arguments: { company_ids: [fx.companies.beta.id], fund_ids: [fx.fundA], as_of_date: AS_OF },
      });
      expect(res.isError).to.not.equal(true);
      const sc = res.structuredContent as { metrics: { moic: string }[] };
      expect(Number(sc.metrics[0]!.moic)).to.equal(3);
      const perf = await mcp.callTool({
        name: 'get_fund_performance',
        arguments: { fund_id: FUND_B, as_of_date: AS_OF },
      });
      expect(perf.isError).to.not.equal(true);
      const funds = (perf.structuredContent as { funds: { paid_in_capital: string }[] }).funds;
      expect(Number(funds[0]!.paid_in_capital)).to.equal(430_000);
    });

    it("get_investment_metrics without company ids ranks every visible company by sort_by ('-' for highest first), limited", async () => {
      const every = await metrics({
        company_ids: [fx.companies.acme.id, fx.companies.beta.id, fx.companies.gamma.id],
        as_of_date: AS_OF,
      });
      const res = await mcp.callTool({
        name: 'get_investment_metrics',
        arguments: { as_of_date: AS_OF, sort_by: '-fair_value', limit: 2 },
      });
      expect(res.isError, JSON.stringify(res.content)).to.not.equal(true);
      const top = (res.structuredContent as { metrics: { company_id: string; fair_value: string }[] })
        .metrics;
      // Recomputed: the two largest fair values of the per-company answer, largest first.
      const expected = [...every.metrics]
        .sort((a, b) => Number(b.fair_value) - Number(a.fair_value))
        .slice(0, 2)
        .map((m) => [m.company_id, m.fair_value]);
      expect(top.map((m) => [m.company_id, m.fair_value])).to.deep.equal(expected);
      const byMoic = await mcp.callTool({
        name: 'get_investment_metrics',
        arguments: { as_of_date: AS_OF, sort_by: 'moic' },
      });
      const moics = (byMoic.structuredContent as { metrics: { moic: string | null }[] }).metrics
        .map((m) => m.moic)
        .filter((m) => m !== null)
        .map(Number);
      expect(moics).to.have.length(3);
      expect(moics).to.deep.equal([...moics].sort((a, b) => a - b));
      // REST keeps the reference body: company_ids is required there.
      const rest = await api(server.url, METRICS, { method: 'POST', token: fx.admin.rest, body: {} });
      expect(rest.status).to.equal(400);
      expect(rest.body.errors[0].field).to.equal('company_ids');
    });

    it('states ratios to 4 decimals and IRR and ownership to 6', async () => {
      const { metrics: list } = await metrics({
        company_ids: [fx.companies.acme.id, fx.companies.beta.id, fx.companies.gamma.id],
        as_of_date: AS_OF,
      });
      for (const m of list) {
        if (m.moic !== null) expect(m.moic).to.match(/^-?\d+\.\d{4}$/);
        if (m.irr !== null) expect(Number(m.irr.toFixed(6))).to.equal(m.irr);
        if (typeof m.ownership === 'number') expect(Number(m.ownership.toFixed(6))).to.equal(m.ownership);
      }
      const { funds } = await performance(`as_of_date=${AS_OF}`);
      for (const f of funds)
        for (const key of ['moic', 'tvpi', 'dpi', 'rvpi'])
          if (f[key] !== null) expect(f[key]).to.match(/^-?\d+\.\d{4}$/);
    });

    it('get_fund_performance lists companies largest NAV first, with cash flows only when asked over MCP', async () => {
      const call = async (args: Record<string, unknown>) =>
        // biome-ignore lint/suspicious/noExplicitAny: tests inspect arbitrary JSON
        (await mcp.callTool({ name: 'get_fund_performance', arguments: args })).structuredContent as any;
      const plain = await call({ fund_id: fx.fundA, as_of_date: AS_OF });
      const fund = plain.funds[0];
      expect(fund).to.not.have.property('cash_flows');
      const navs = fund.companies.results.map((c: { fair_value: string }) => Number(c.fair_value));
      expect(navs).to.deep.equal([...navs].sort((a, b) => b - a));
      for (const c of fund.companies.results) expect(c).to.not.have.property('cash_flows');
      const full = await call({ fund_id: fx.fundA, as_of_date: AS_OF, include_cash_flows: true });
      // The NAV is the fair-value flow of the fund's own cash flows.
      const navFlow = full.funds[0].cash_flows
        .filter((f: { kind: string }) => f.kind === 'fair_value')
        .reduce((t: number, f: { amount: string }) => t + Number(f.amount), 0);
      expect(navFlow).to.be.closeTo(Number(fund.fair_value), 1e-6);
      const rest = await performance(`fund_id=${fx.fundA}&as_of_date=${AS_OF}`);
      expect(rest.funds[0].cash_flows).to.deep.equal(full.funds[0].cash_flows);
    });

    it('a restricted user sees only the companies they may see, in metrics and in fund figures', async () => {
      const { metrics: list } = await metrics(
        { company_ids: [fx.companies.acme.id, fx.companies.beta.id], as_of_date: AS_OF },
        fx.restricted.rest,
      );
      expect(list.map((m) => m.company_id)).to.deep.equal([fx.companies.acme.id]);
      const { funds } = await performance(`fund_id=${fx.fundA}&as_of_date=${AS_OF}`, fx.restricted.rest);
      expect(Number(funds[0].paid_in_capital)).to.equal(1_000_000);
      expect(funds[0].companies.count).to.equal(1);
    });

    it("another firm sees none of this firm's returns", async () => {
      const { metrics: list } = await metrics(
        { company_ids: [fx.companies.acme.id], as_of_date: AS_OF },
        fx.other.rest,
      );
      expect(list).to.deep.equal([]);
      const res = await api(server.url, `/v1/funds/performance/?fund_id=${fx.fundA}`, {
        token: fx.other.rest,
      });
      expect(res.status).to.equal(404);
      expect(res.body.detail ?? res.body.message ?? JSON.stringify(res.body)).to.match(/list_funds/);
    });

    it('rejects a missing company_ids, an unknown filter and a malformed date, naming each', async () => {
      for (const [body, field] of [
        [{}, 'company_ids'],
        [{ company_ids: [fx.companies.acme.id], fund: 'x' }, 'fund'],
        [{ company_ids: [fx.companies.acme.id], as_of_date: '2025-13-01' }, 'as_of_date'],
      ] as const) {
        const res = await api(server.url, METRICS, { method: 'POST', token: fx.admin.rest, body });
        expect(res.status, JSON.stringify(res.body)).to.equal(400);
        expect(JSON.stringify(res.body)).to.contain(field);
      }
    });
  });
}
