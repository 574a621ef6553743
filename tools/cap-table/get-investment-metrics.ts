import { z } from 'zod';
import { CashFlow, METHOD } from '../../analytics/fund-returns.ts';
import { investmentMetrics } from '../../analytics/investment-metrics.ts';
import { utcDate } from '../../core/clock.ts';
import { Table, toTable } from '../concise.ts';
import { defineTool, readOnly } from '../define.ts';
import { filterObject, listFilter } from './shared.ts';

const CompanyMetrics = z.object({
  company_id: z.string(),
  company_name: z.string(),
  as_of_date: z.string().describe('YYYY-MM-DD.'),
  currency: z.string().describe("The firm's currency: every amount is in it."),
  irr: z
    .number()
    .nullable()
    .describe('Gross IRR as a fraction (0.25 = 25 %), 6 decimals: the XIRR of cash_flows.'),
  irr_note: z.string().nullable().describe('Why irr is null, or null.'),
  moic: z.string().nullable().describe('(realized_value + fair_value) / investment_amount, 4 decimals.'),
  fair_value: z.string().describe('Value held at as_of_date.'),
  investment_amount: z.string().describe('Money invested up to as_of_date.'),
  realized_value: z.string().describe('Sale proceeds up to as_of_date.'),
  ownership: z
    .number()
    .nullable()
    .describe(
      'total_shares_owned / fully_diluted_shares as a fraction (6 decimals), or per fund its latest ownership override on or before as_of_date.',
    ),
  total_shares_owned: z.string().describe('Shares held at as_of_date by the funds counted.'),
  pre_money_valuation: z.string().nullable().describe('Of the latest round on or before as_of_date.'),
  post_money_valuation: z
    .string()
    .nullable()
    .describe(
      'The latest post-money valuation override on or before as_of_date, else pre_money_valuation + that round size.',
    ),
  fully_diluted_shares: z
    .string()
    .nullable()
    .describe('Of the latest round on or before as_of_date that states it.'),
  latest_price_per_share: z.string().nullable().describe('Latest share-class price on or before as_of_date.'),
  notes: z.array(z.string()).describe('Amounts left out and other caveats.'),
  cash_flows: z
    .array(CashFlow)
    .optional()
    .describe('Dated flows behind the figures, the fair value last; only with include_cash_flows.'),
});

const SORT_FIELDS = ['fair_value', 'moic', 'irr', 'investment_amount', 'ownership'] as const;
type SortField = (typeof SORT_FIELDS)[number];
const SORTS = SORT_FIELDS.flatMap((f) => [f, `-${f}`, `+${f}`] as const);
type Metrics = z.input<typeof CompanyMetrics>;

/** `-irr` ranks from the highest irr down; `irr` or `+irr` from the lowest up. */
function parseSort(sortBy: string): { field: SortField; order: 'asc' | 'desc' } {
  return { field: sortBy.replace(/^[-+]/, '') as SortField, order: sortBy.startsWith('-') ? 'desc' : 'asc' };
}

/** Orders by one figure, unknown values last, then by company name. */
function sortMetrics(rows: Metrics[], field: SortField, order: 'asc' | 'desc'): Metrics[] {
  const sign = order === 'desc' ? -1 : 1;
  const key = (m: Metrics) => {
    const v = m[field];
    return v === null || v === undefined ? null : typeof v === 'number' ? v : Number(v);
  };
  return [...rows].sort((a, b) => {
    const x = key(a);
    const y = key(b);
    if (x === null || y === null)
      return x === y ? a.company_name.localeCompare(b.company_name) : x === null ? 1 : -1;
    return sign * (x - y) || a.company_name.localeCompare(b.company_name);
  });
}

export const getInvestmentMetrics = defineTool({
  name: 'get_investment_metrics',
  title: 'Get investment metrics (IRR, MOIC, fair value)',
  description: `Each company's investment returns from the cap table (IRR, MOIC, fair value, invested, realised, ownership, valuations) over every fund or fund_ids, in the firm's currency. ${METHOD} The flows behind them only with include_cash_flows. Whole funds: get_fund_performance.`,
  input: filterObject({
    company_ids: z
      .array(z.string())
      .min(1)
      .max(1000)
      .optional()
      .describe('Company ids; omitted: every visible company.'),
    fund_ids: z
      .array(z.string())
      .max(1000)
      .nullish()
      .describe('Only these funds (list_funds); omitted or empty: all together.'),
    as_of_date: z.iso.date().optional().describe('Date to measure at, YYYY-MM-DD. Default today (UTC).'),
    sort_by: z
      .enum(SORTS)
      .optional()
      .describe("Rank by this figure, unknown last; '-' prefix: highest first (e.g. -irr). Default by name."),
    limit: z.number().int().min(1).max(1000).optional().describe('First `limit` only.'),
    include_cash_flows: z
      .boolean()
      .optional()
      .describe("Add each company's cash_flows (default false; REST: true)."),
  }),
  output: z.object({
    as_of_date: z.string(),
    metrics: z.array(CompanyMetrics).describe('One item per visible company the funds invested in.'),
  }),
  annotations: readOnly,
  // Every flow in one table, when asked for; fx_date is always the flow's date, so it is not repeated.
  concise: (output, input) => ({
    as_of_date: output.as_of_date,
    metrics: output.metrics.map(({ cash_flows: _f, as_of_date: _d, ...figures }) => figures),
    ...(input.include_cash_flows
      ? {
          cash_flow_table: toTable(
            output.metrics.flatMap((m) => m.cash_flows ?? []),
            [
              'company_id',
              'fund_id',
              'security_id',
              'date',
              'kind',
              'amount',
              'value',
              'currency',
              'fx_rate',
            ],
          ),
        }
      : {}),
  }),
  conciseOutput: z.object({ cash_flow_table: Table }),
  routes: [
    {
      method: 'POST',
      path: '/beta/investment/metrics/get/',
      summary: 'Get investment performance metrics',
      body: 'merge',
      requireOneOf: ['company_ids'],
      defaults: { include_cash_flows: true },
    },
  ],
  async handler(ctx, input) {
    const asOf = input.as_of_date ?? utcDate(ctx.clock.now());
    const metrics = await investmentMetrics(ctx, {
      companyIds: input.company_ids && [...input.company_ids],
      fundIds: listFilter(input.fund_ids),
      asOf,
    });
    const sort = input.sort_by && parseSort(input.sort_by);
    const sorted = sort ? sortMetrics(metrics, sort.field, sort.order) : metrics;
    const kept = input.limit ? sorted.slice(0, input.limit) : sorted;
    const withFlows = input.include_cash_flows ?? false;
    return {
      as_of_date: asOf,
      metrics: withFlows ? kept : kept.map(({ cash_flows: _f, ...figures }) => figures),
    };
  },
});
