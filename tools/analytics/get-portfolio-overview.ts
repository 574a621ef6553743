import { z } from 'zod';
import type { Figure } from '../../analytics/figure.ts';
import {
  loadPortfolio,
  type PortfolioCompany,
  portfolioFigure,
  STALE_AFTER_MONTHS,
} from '../../analytics/portfolio.ts';
import { monthText } from '../../analytics/series.ts';
import * as D from '../../core/decimal.ts';
import { Table, toTable } from '../concise.ts';
import { defineTool, readOnly } from '../define.ts';

const RUNWAY_ALERT_MONTHS = 12;

const StatusCount = z.object({ status: z.string(), count: z.number().int() });
const SectorCount = z.object({ sector: z.string(), count: z.number().int() });

const Total = z.object({
  value: z
    .string()
    .nullable()
    .describe("Sum in the firm's currency, 2 decimals; null when no company has the figure."),
  currency: z.string().describe("The firm's preferred currency."),
  company_count: z.number().int().describe('Active companies included in the sum.'),
  excluded: z
    .array(z.object({ company_id: z.string(), company_name: z.string(), reason: z.string() }))
    .describe('Active companies left out of the sum, each with why (stale data, figure or rate missing).'),
});
type Total = z.infer<typeof Total>;

const Attention = z.object({
  company_id: z.string(),
  company_name: z.string(),
  status: z.string(),
  reasons: z
    .array(
      z.object({
        kind: z.enum(['stale_data', 'short_runway', 'late_report']),
        detail: z.string().describe('What was found, with the figures and dates.'),
      }),
    )
    .describe('Every reason the company needs attention.'),
});
type Attention = z.infer<typeof Attention>;

const DEFINITIONS =
  `Totals sum the active companies' latest cash_in_bank, latest ARR and TTM revenue (as in ` +
  `get_company_financial_summary), each converted into the firm's currency at the latest rate on or before the ` +
  `end of its month; a stale company's figures describe the past and are left out. stale_data: no actual data ` +
  `in the ${STALE_AFTER_MONTHS} months before the firm's latest reported month, or older. short_runway: runway ` +
  `under ${RUNWAY_ALERT_MONTHS} months. late_report: on the firm's information request with the latest due date ` +
  'up to today, the report was submitted after the due date, or is not submitted and the due date has passed. ' +
  'Only active companies are checked for attention.';

export const getPortfolioOverview = defineTool({
  name: 'get_portfolio_overview',
  title: 'Portfolio overview',
  description:
    "The whole portfolio in one call: companies by status and sector, total cash, ARR and TTM revenue in the firm's currency, and active companies needing attention (stale data, runway under 12 months, late on the latest request), each with why. Start a review here.",
  input: z.object({
    fund_id: z
      .string()
      .min(1)
      .optional()
      .describe('Only the companies this fund invested in (see list_funds); default every visible company.'),
  }),
  output: z.object({
    fund_id: z.string().nullable(),
    currency: z.string().describe("The firm's preferred currency, of every total."),
    firm_latest_month: z
      .string()
      .nullable()
      .describe('YYYY-MM of the newest actual data; staleness is measured from it.'),
    definitions: z.string().describe('How the totals and the attention reasons are computed.'),
    company_count: z.number().int(),
    by_status: z.array(StatusCount).describe('Companies per status, most first.'),
    by_sector: z.array(SectorCount).describe('Companies per sector, most first.'),
    totals: z.object({ cash_in_bank: Total, arr: Total, revenue_ttm: Total }),
    latest_information_request: z
      .object({ id: z.string(), name: z.string(), due_date: z.string() })
      .nullable()
      .describe('The request lateness is judged on; null when none is due yet.'),
    needs_attention: z.array(Attention).describe('Active companies needing attention, by name.'),
  }),
  annotations: readOnly,
  // Every company needing attention is active (see definitions): one row per reason.
  concise: ({ needs_attention, ...rest }) => ({
    ...rest,
    attention: toTable(
      needs_attention.flatMap((a) =>
        a.reasons.map((r) => ({ company_id: a.company_id, company_name: a.company_name, ...r })),
      ),
      ['company_id', 'company_name', 'kind', 'detail'],
    ),
  }),
  conciseOutput: z.object({ attention: Table }),
  routes: [
    {
      method: 'GET',
      path: '/v1/portfolio/overview/',
      summary: 'Companies by status and sector, totals in the firm currency and who needs attention',
    },
  ],
  async handler(ctx, input) {
    const portfolio = await loadPortfolio(ctx, { fund_id: input.fund_id });
    const { companies, preferred, rates } = portfolio;
    const today = ctx.clock.now().toISOString().slice(0, 10);
    const due = await ctx.repos.analytics.latestDueRequest(ctx.principal.scope, today);
    const active = companies.filter((c) => c.company.status.toLowerCase() === 'active');

    const total = (pick: (c: PortfolioCompany) => Figure): Total => {
      let sum: D.Decimal | null = null;
      let count = 0;
      const excluded: Total['excluded'] = [];
      for (const c of active) {
        const f = portfolioFigure(pick(c), preferred, rates);
        const leave = (reason: string) =>
          excluded.push({ company_id: c.company.id, company_name: c.company.name, reason });
        if (c.stale) leave(staleDetail(c));
        else if (f.converted_value === null) leave(f.reason ?? 'not computed');
        else {
          sum = D.add(sum ?? D.fromInteger(0), D.readDecimal(f.converted_value)!);
          count += 1;
        }
      }
      return {
        value: sum === null ? null : D.toFixed(sum, 2),
        currency: preferred,
        company_count: count,
        excluded,
      };
    };

    const late = new Map<string, string>();
    if (due) {
      for (const r of due.reports) {
        const submitted = r.submitted_at?.slice(0, 10) ?? null;
        const { name, due_date } = due.request;
        if (submitted !== null && submitted > due_date) {
          late.set(
            r.company_id,
            `report for "${name}" (due ${due_date}) was submitted late, on ${submitted}`,
          );
        } else if (submitted === null && today > due_date) {
          late.set(r.company_id, `report for "${name}" (due ${due_date}) is not submitted`);
        }
      }
    }

    const needsAttention: Attention[] = [];
    for (const c of active) {
      const reasons: Attention['reasons'] = [];
      if (c.stale) reasons.push({ kind: 'stale_data', detail: staleDetail(c) });
      const runway = c.summary.runway_months;
      if (runway.value !== null && D.compareDecimal(runway.value, String(RUNWAY_ALERT_MONTHS)) < 0) {
        reasons.push({
          kind: 'short_runway',
          detail: `runway is ${runway.value} months as of ${runway.period?.to ?? 'its latest month'}`,
        });
      }
      const lateDetail = late.get(c.company.id);
      if (lateDetail) reasons.push({ kind: 'late_report', detail: lateDetail });
      if (reasons.length > 0) {
        needsAttention.push({
          company_id: c.company.id,
          company_name: c.company.name,
          status: c.company.status,
          reasons,
        });
      }
    }

    return {
      fund_id: input.fund_id ?? null,
      currency: preferred,
      firm_latest_month: portfolio.firmLatest === null ? null : monthText(portfolio.firmLatest),
      definitions: DEFINITIONS,
      company_count: companies.length,
      by_status: counts(companies.map((c) => c.company.status)).map(([status, count]) => ({ status, count })),
      by_sector: counts(companies.map((c) => c.company.sector)).map(([sector, count]) => ({ sector, count })),
      totals: {
        cash_in_bank: total((c) => c.summary.latest.cash_in_bank),
        arr: total((c) => c.summary.latest.arr),
        revenue_ttm: total((c) => c.summary.ttm_revenue),
      },
      latest_information_request: due ? due.request : null,
      needs_attention: needsAttention,
    };
  },
});

function staleDetail(c: PortfolioCompany): string {
  return c.lastReported === null
    ? 'no actual data reported'
    : `latest actual data is from ${monthText(c.lastReported)}`;
}

/** Value counts, most first, then by value. */
function counts(values: string[]): [string, number][] {
  const out = new Map<string, number>();
  for (const v of values) out.set(v, (out.get(v) ?? 0) + 1);
  return [...out.entries()].sort((a, b) => b[1] - a[1] || a[0].localeCompare(b[0]));
}
