import { z } from 'zod';
import * as D from '../../core/decimal.ts';
import { defineTool, readOnly } from '../define.ts';
import { NotFound } from '../errors.ts';
import { statusInput } from '../schemas/company-status.ts';
import { CurrencyCode } from '../schemas/currency.ts';
import { type PortfolioFigure as FigureValue, PortfolioFigure } from '../schemas/figure.ts';
import { listOf, pageFields } from '../schemas/page.ts';
import type { Summary } from './financial-summary.ts';
import { loadPortfolio, type PortfolioCompany, portfolioFigure, STALE_AFTER_MONTHS } from './portfolio.ts';
import { monthText } from './series.ts';

const FIGURES = [
  'cash_in_bank',
  'arr',
  'revenue_ttm',
  'revenue_growth_yoy',
  'net_burn_avg_3m',
  'runway_months',
  'burn_multiple',
  'gross_margin_ttm',
  'headcount',
] as const;
type FigureName = (typeof FIGURES)[number];

const SORTABLE = [...FIGURES, 'name', 'last_reported_month'] as const;
const SORT_VALUES = SORTABLE.flatMap((f) => [f, `-${f}`]) as [string, ...string[]];

/** Each screen figure, taken from the financial summary so both tools agree. */
const FROM_SUMMARY: Record<FigureName, (s: Summary) => Summary['ttm_revenue']> = {
  cash_in_bank: (s) => s.latest.cash_in_bank,
  arr: (s) => s.latest.arr,
  revenue_ttm: (s) => s.ttm_revenue,
  revenue_growth_yoy: (s) => s.revenue_growth_yoy,
  net_burn_avg_3m: (s) => s.net_burn_avg_3m,
  runway_months: (s) => s.runway_months,
  burn_multiple: (s) => s.burn_multiple,
  gross_margin_ttm: (s) => s.gross_margin_ttm,
  headcount: (s) => s.latest.headcount,
};

const ScreenRow = z.object({
  company_id: z.string(),
  name: z.string(),
  status: z.string(),
  sector: z.string(),
  reporting_currency: z.string(),
  last_reported_month: z
    .string()
    .nullable()
    .describe('YYYY-MM of the newest actual (non-budget) data of any category; null when none.'),
  stale: z
    .boolean()
    .describe(
      `True when the newest actual data is more than ${STALE_AFTER_MONTHS} months older than the firm's newest ` +
        'reported month (or there is none): its figures describe the past.',
    ),
  ...(Object.fromEntries(FIGURES.map((f) => [f, PortfolioFigure])) as Record<
    FigureName,
    typeof PortfolioFigure
  >),
});
type ScreenRow = z.infer<typeof ScreenRow>;

export const screenCompanies = defineTool({
  name: 'screen_companies',
  title: 'Screen and rank portfolio companies',
  description:
    'Filters and ranks every company you can see by key figures (cash, ARR, TTM revenue, YoY growth, 3-month net burn, runway, burn multiple, gross margin, headcount; as defined in get_company_financial_summary), nulls last, money in the firm\'s currency. E.g. "five active companies with the shortest runway": status=active, sort_by=runway_months, per_page=5. Check `stale` before trusting a figure.',
  input: z.object({
    status: statusInput,
    sector: z.string().min(1).optional().describe('Only companies of this sector (exact, case-insensitive).'),
    fund_id: z.string().min(1).optional().describe('Only companies this fund invested in (see list_funds).'),
    reporting_currency: CurrencyCode.optional().describe('Only companies reporting in this currency.'),
    stale: z
      .boolean()
      .optional()
      .describe('true: only stale companies; false: only companies with recent data.'),
    sort_by: z
      .enum(SORT_VALUES)
      .default('name')
      .describe(
        'Figure to sort by, ascending; prefix with - for descending. Nulls always last. Default name.',
      ),
    ...pageFields,
  }),
  output: listOf(ScreenRow).extend({
    firm_latest_month: z
      .string()
      .nullable()
      .describe(
        "YYYY-MM of the newest actual data over the caller's companies; staleness is measured from it.",
      ),
    currency: z
      .string()
      .describe("The firm's preferred currency (converted_currency of every money figure)."),
  }),
  annotations: readOnly,
  async handler(ctx, input) {
    const portfolio = await loadPortfolio(ctx, input);
    const rows = portfolio.companies
      .filter((c) => input.stale === undefined || c.stale === input.stale)
      .map((c) => toRow(c, portfolio.preferred, portfolio.rates));
    const descending = input.sort_by.startsWith('-');
    const key = input.sort_by.replace(/^-/, '');
    rows.sort((a, b) => compareRows(a, b, key, descending));
    const offset = (input.page - 1) * input.per_page;
    if (input.page > 1 && offset >= rows.length) {
      const last = Math.max(1, Math.ceil(rows.length / input.per_page));
      throw new NotFound(`page ${input.page} is past the last page (${last}); request page 1 to ${last}`);
    }
    const results = rows.slice(offset, offset + input.per_page);
    return {
      count: rows.length,
      page: input.page,
      per_page: input.per_page,
      has_more: offset + results.length < rows.length,
      results,
      firm_latest_month: portfolio.firmLatest === null ? null : monthText(portfolio.firmLatest),
      currency: portfolio.preferred,
    };
  },
});

function toRow(
  c: PortfolioCompany,
  preferred: string,
  rates: Parameters<typeof portfolioFigure>[2],
): ScreenRow {
  const figures = Object.fromEntries(
    FIGURES.map((f) => [f, portfolioFigure(FROM_SUMMARY[f](c.summary), preferred, rates)]),
  ) as Record<FigureName, FigureValue>;
  return {
    company_id: c.company.id,
    name: c.company.name,
    status: c.company.status,
    sector: c.company.sector,
    reporting_currency: c.company.reporting_currency,
    last_reported_month: c.lastReported === null ? null : monthText(c.lastReported),
    stale: c.stale,
    ...figures,
  };
}

/** The comparable text of a row's sort key: money in the firm currency, other figures as they are. */
function sortKey(row: ScreenRow, key: string): string | null {
  if (key === 'name') return row.name;
  if (key === 'last_reported_month') return row.last_reported_month;
  const f = row[key as FigureName];
  return f.unit === 'money' ? f.converted_value : f.value;
}

function compareRows(a: ScreenRow, b: ScreenRow, key: string, descending: boolean): number {
  const ka = sortKey(a, key);
  const kb = sortKey(b, key);
  if (ka === null || kb === null) {
    if (ka !== kb) return ka === null ? 1 : -1;
  } else {
    const numeric = key !== 'name' && key !== 'last_reported_month';
    const order = numeric ? D.compareDecimal(ka, kb) : ka.localeCompare(kb);
    if (order !== 0) return descending ? -order : order;
  }
  return a.name.localeCompare(b.name) || a.company_id.localeCompare(b.company_id);
}
