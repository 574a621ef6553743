import { z } from 'zod';
import { CashFlow, loadReturns, type Position, summarise } from '../../analytics/fund-returns.ts';
import { roundFraction, roundMultiple } from '../../analytics/precision.ts';
import { utcDate } from '../../core/clock.ts';
import { compare } from '../../core/decimal.ts';
import { defineTool, readOnly, restPaging } from '../define.ts';
import { NotFound } from '../errors.ts';
import { pageFields } from '../schemas/page.ts';
import { VIEWS } from '../views.ts';

const ratio = (what: string) =>
  z.string().nullable().describe(`${what}, 4 decimals; null with nothing paid in.`);
const flows = (what: string) =>
  z.array(CashFlow).optional().describe(`${what}; only with include_cash_flows.`);

const CompanyReturn = z.object({
  company_id: z.string(),
  company_name: z.string(),
  paid_in_capital: z.string().describe("Invested in the company up to as_of_date, in the firm's currency."),
  realized_value: z.string().describe('Sale proceeds up to as_of_date.'),
  fair_value: z.string().describe('Value held at as_of_date.'),
  moic: ratio('(realized_value + fair_value) / paid_in_capital'),
  irr: z.number().nullable().describe('Gross IRR as a fraction, 6 decimals: the XIRR of the flows.'),
  irr_note: z.string().nullable().describe('Why irr is null, or null.'),
  notes: z.array(z.string()).describe('Amounts left out and other caveats.'),
  cash_flows: flows('The flows behind the figures'),
});

const FundReturn = z.object({
  fund_id: z.string(),
  fund_name: z.string(),
  as_of_date: z.string(),
  currency: z.string().describe("The firm's currency: every amount is in it."),
  paid_in_capital: z.string().describe('Sum of investment flows, as a positive amount.'),
  realized_value: z.string().describe('Sum of sale proceeds (distributions).'),
  fair_value: z.string().describe('Net asset value at as_of_date: the fair value still held.'),
  moic: ratio('(realized_value + fair_value) / paid_in_capital'),
  tvpi: ratio('Total value to paid-in, gross: the same as moic at fund level'),
  dpi: ratio('realized_value / paid_in_capital'),
  rvpi: ratio('fair_value / paid_in_capital'),
  gross_irr: z.number().nullable().describe('XIRR of the flows, as a fraction (0.25 = 25 %), 6 decimals.'),
  irr_note: z.string().nullable().describe('Why gross_irr is null, or null.'),
  notes: z.array(z.string()).describe('Amounts left out and other caveats.'),
  cash_flows: flows("The fund's flows in every company, by date, the fair value last"),
  companies: z.object({
    count: z.number().int().describe('Companies the fund holds or held.'),
    page: z.number().int(),
    per_page: z.number().int(),
    has_more: z.boolean().describe('True when a further page of companies exists.'),
    results: z.array(CompanyReturn).describe('One page of the per-company breakdown, largest NAV first.'),
  }),
});

export const getFundPerformance = defineTool({
  name: 'get_fund_performance',
  title: 'Get fund performance (TVPI, DPI, IRR)',
  description: `Each fund's gross returns in the firm's currency (paid-in, realised, NAV, MOIC, TVPI, DPI, RVPI, IRR) with a paged per-company breakdown of the companies you can see, largest NAV first. Method as get_investment_metrics; IRR is a fraction (0.25 = 25 %).`,
  input: z.object({
    fund_id: z
      .string()
      .min(1)
      .nullish()
      .describe('Only this fund (id from list_funds). Omitted: every fund.'),
    as_of_date: z.iso.date().optional().describe('Date to measure at, YYYY-MM-DD. Default today (UTC).'),
    include_cash_flows: z.boolean().optional().describe('Add cash_flows (default false; REST: true).'),
    ...pageFields,
  }),
  output: z.object({
    as_of_date: z.string(),
    funds: z.array(FundReturn).describe('One item per fund, by name; the companies page applies to each.'),
  }),
  annotations: readOnly,
  ui: { resourceUri: VIEWS.fund.uri },
  routes: [
    {
      method: 'GET',
      path: '/v1/funds/performance/',
      summary: 'Fund returns: paid-in, NAV, TVPI, DPI, RVPI, gross IRR',
      rename: restPaging,
      defaults: { include_cash_flows: true },
    },
  ],
  async handler(ctx, input) {
    const asOf = input.as_of_date ?? utcDate(ctx.clock.now());
    const firmId = ctx.principal.firm.id;
    let funds: { id: string; name: string }[];
    if (input.fund_id) {
      const fund = await ctx.repos.funds.get(firmId, input.fund_id);
      if (!fund) throw new NotFound(`fund ${input.fund_id} not found; list_funds gives the ids`);
      funds = [fund];
    } else {
      funds = (await ctx.repos.funds.list(firmId, { limit: 10_000, offset: 0 })).rows;
    }
    const data = await loadReturns(ctx, { fundIds: funds.map((f) => f.id), asOf });
    const start = (input.page - 1) * input.per_page;
    const withFlows = input.include_cash_flows ?? false;
    return {
      as_of_date: asOf,
      funds: funds.map((fund) => {
        const positions = byNav(data.positions.filter((p) => p.fundId === fund.id));
        const s = summarise(positions, data.currency);
        return {
          fund_id: fund.id,
          fund_name: fund.name,
          as_of_date: asOf,
          currency: s.currency,
          paid_in_capital: s.investment_amount,
          realized_value: s.realized_value,
          fair_value: s.fair_value,
          moic: roundMultiple(s.moic),
          tvpi: roundMultiple(s.moic),
          dpi: roundMultiple(s.dpi),
          rvpi: roundMultiple(s.rvpi),
          gross_irr: roundFraction(s.irr),
          irr_note: s.irr_note,
          notes: s.notes,
          ...(withFlows ? { cash_flows: s.cash_flows } : {}),
          companies: {
            count: positions.length,
            page: input.page,
            per_page: input.per_page,
            has_more: start + input.per_page < positions.length,
            results: positions
              .slice(start, start + input.per_page)
              .map((p) => companyReturn(p, data.currency, withFlows)),
          },
        };
      }),
    };
  },
});

/** Largest fair value (NAV) first, then by company name. */
function byNav(positions: Position[]): Position[] {
  return positions.sort(
    (a, b) => compare(b.fairValue, a.fairValue) || a.companyName.localeCompare(b.companyName),
  );
}

function companyReturn(p: Position, currency: string, withFlows: boolean) {
  const s = summarise([p], currency);
  return {
    company_id: p.companyId,
    company_name: p.companyName,
    paid_in_capital: s.investment_amount,
    realized_value: s.realized_value,
    fair_value: s.fair_value,
    moic: roundMultiple(s.moic),
    irr: roundFraction(s.irr),
    irr_note: s.irr_note,
    notes: s.notes,
    ...(withFlows ? { cash_flows: s.cash_flows } : {}),
  };
}
