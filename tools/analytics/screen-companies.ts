import { z } from 'zod';
import { loadPortfolio, type PortfolioCompany, STALE_AFTER_MONTHS } from '../../analytics/portfolio.ts';
import { figuresOf } from '../../analytics/screen.ts';
import {
  BUDGET_FIGURES,
  type CompanyFigures,
  FIGURE_NAMES,
  type FigureName,
  OWN_CURRENCY_GROWTH,
} from '../../analytics/screen-figures.ts';
import { monthOf, monthText } from '../../analytics/series.ts';
import * as D from '../../core/decimal.ts';
import { conciseDefault, Table } from '../concise.ts';
import type { ToolContext } from '../context.ts';
import { defineTool, readOnly, restPaging } from '../define.ts';
import { InvalidInput, NotFound } from '../errors.ts';
import { statusInput } from '../schemas/company-status.ts';
import { CurrencyCode } from '../schemas/currency.ts';
import { listOf, MAX_PER_PAGE } from '../schemas/page.ts';
import { VIEWS } from '../views.ts';

const DEFAULT_COLUMNS: FigureName[] = ['arr', 'arr_growth_yoy', 'revenue_ttm', 'runway_months'];
const OPS = {
  lt: (c: number) => c < 0,
  lte: (c: number) => c <= 0,
  gt: (c: number) => c > 0,
  gte: (c: number) => c >= 0,
  eq: (c: number) => c === 0,
  ne: (c: number) => c !== 0,
};
const GROUPS = ['status', 'sector', 'fund', 'reporting_currency'] as const;
const TEXT_SORTS = ['name', 'last_reported_month'];

const Figure = z.enum(FIGURE_NAMES);
const Stats = z.object({
  values: z.number().int().describe('Companies with a value; the others are left out of the statistics.'),
  sum: z.string().nullable(),
  median: z.string().nullable(),
  min: z.string().nullable(),
  max: z.string().nullable(),
});
type Stats = z.infer<typeof Stats>;
const Group = z.object({
  key: z
    .string()
    .nullable()
    .describe('The status, sector, fund id or currency; null for companies in no fund.'),
  fund_name: z.string().optional(),
  count: z.number().int(),
  stale_count: z.number().int().describe('Stale members, counted but left out of stats.'),
  stats: z.record(z.string(), Stats).describe('Per chosen column.'),
});
type Group = z.infer<typeof Group>;

const ScreenRow = z
  .object({
    company_id: z.string(),
    name: z.string(),
    status: z.string(),
    sector: z.string(),
    reporting_currency: z.string(),
    last_reported_month: z.string().nullable().describe('YYYY-MM of the newest actual data; null when none.'),
    stale: z
      .boolean()
      .describe(
        `No actual data in the ${STALE_AFTER_MONTHS} months before firm_latest_month: figures are old.`,
      ),
    growth_currency: z
      .string()
      .nullable()
      .optional()
      .describe('Currency arr_growth_yoy and revenue_growth_yoy are in, when not reporting_currency.'),
    budget_period: z
      .string()
      .nullable()
      .optional()
      .describe('Budgeted period compared: YYYY-MM, YYYY-Qn or YYYY.'),
    null_reasons: z.record(z.string(), z.string()).optional().describe('Why each null column is null.'),
  })
  // One field per chosen column: a decimal string, money in `currency`, percent as 12.50; or null.
  .catchall(z.string().nullable());
/** A row as built: its fixed fields, then one field per chosen column (the schema's catchall). */
type ScreenRow = Record<string, unknown>;

export const screenCompanies = defineTool({
  name: 'screen_companies',
  title: 'Screen, rank and total portfolio companies',
  description:
    "Every company you can see with the chosen figures (as in get_company_financial_summary; money in the firm's currency): filter, sort (nulls last), page, or total per group. " +
    'Growth columns: in reporting_currency (else growth_currency) or _firm_currency. Budget: revenue against the latest budget in its latest reported period. post_money_valuation, ownership_pct, moic, fair_value: from the cap table (as get_investment_metrics; the last three need the cap-table permission). ' +
    `E.g. status=active, sort_by=-arr_growth_yoy, per_page=3; group_by=sector, columns=[arr]. Stale: last_reported_month more than ${STALE_AFTER_MONTHS} months before firm_latest_month, or none; group stats leave stale companies out (stale_count) unless stale=true.`,
  input: z.object({
    status: statusInput,
    sector: z.string().min(1).optional().describe('Only this sector (case-insensitive).'),
    fund_id: z
      .string()
      .min(1)
      .optional()
      .describe('Only companies this fund invested in; cap-table figures then count this fund only.'),
    reporting_currency: CurrencyCode.optional().describe('Only companies reporting in this currency.'),
    stale: z.boolean().optional().describe('true: only stale companies; false: only fresh ones.'),
    last_reported_month: z
      .string()
      .regex(/^[<>]?\d{4}-(0[1-9]|1[0-2])$/, 'must be YYYY-MM, <YYYY-MM or >YYYY-MM')
      .optional()
      .describe('YYYY-MM: last reported then; <YYYY-MM: before; >YYYY-MM: after.'),
    columns: z
      .array(Figure)
      .min(1)
      .max(FIGURE_NAMES.length)
      .optional()
      .describe(`Figures to return. Default: ${DEFAULT_COLUMNS.join(', ')}.`),
    filters: z
      .array(
        z.object({
          // Not the enum again: `columns` lists the names once.
          figure: z
            .string()
            .refine((v) => (FIGURE_NAMES as readonly string[]).includes(v), {
              message: `unknown figure; one of ${FIGURE_NAMES.join(', ')}`,
            })
            .describe('A column name.'),
          op: z.enum(Object.keys(OPS) as [keyof typeof OPS, ...(keyof typeof OPS)[]]),
          value: z.number().describe('Money in the firm currency; percent as 12.5.'),
        }),
      )
      .max(20)
      .optional()
      .describe('All must hold; a null figure fails every filter.'),
    group_by: z
      .enum(GROUPS)
      .optional()
      .describe(
        'Adds groups and total (all companies): count, and sum/median/min/max of each column. A company in two funds counts in both. Rows only with per_page.',
      ),
    sort_by: z
      .string()
      .default('name')
      .describe('A column, name or last_reported_month; prefix - for descending.'),
    page: z.number().int().min(1).default(1),
    per_page: z.number().int().min(1).max(MAX_PER_PAGE).optional().describe('Default 100.'),
  }),
  output: listOf(ScreenRow).extend({
    firm_latest_month: z.string().nullable().describe('YYYY-MM of the newest actual data you can see.'),
    currency: z.string().describe("The firm's currency: every money column is in it."),
    columns: z.array(z.string()),
    groups: z.array(Group).optional(),
    total: Group.optional(),
  }),
  annotations: readOnly,
  // Concise: the rows as one table, fields the same in every row stated once (same_in_every_result).
  concise: (result) => {
    const { results, ...rest } = conciseDefault(result as Record<string, unknown>);
    return { ...rest, companies: rowsTable(results as Record<string, unknown>[]) };
  },
  conciseOutput: z.object({ companies: Table, same_in_every_result: z.object({}) }),
  ui: { resourceUri: VIEWS.screen.uri },
  routes: [
    {
      method: 'GET',
      path: '/v1/portfolio/screen/',
      summary: 'Filter and rank every company by its key figures',
      rename: restPaging,
      envelope: 'page',
    },
  ],
  async handler(ctx, input) {
    const columns = input.columns ?? DEFAULT_COLUMNS;
    const sortKey = input.sort_by.replace(/^-/, '');
    if (!TEXT_SORTS.includes(sortKey) && !(FIGURE_NAMES as string[]).includes(sortKey)) {
      throw InvalidInput.field(
        'sort_by',
        `unknown column "${sortKey}"; one of ${[...TEXT_SORTS, ...FIGURE_NAMES].join(', ')}, optionally with -`,
      );
    }
    const filters = input.filters ?? [];
    const needed = new Set<FigureName>([...columns, ...filters.map((f) => f.figure as FigureName)]);
    if (!TEXT_SORTS.includes(sortKey)) needed.add(sortKey as FigureName);

    const portfolio = await loadPortfolio(ctx, input);
    const reported = lastReportedTest(input.last_reported_month);
    const companies = portfolio.companies.filter(
      (c) => (input.stale === undefined || c.stale === input.stale) && reported(c.lastReported),
    );
    const figures = await figuresOf(ctx, companies, needed, input.fund_id, portfolio);
    const rows = companies
      .map((c, i) => ({ c, f: figures[i]! }))
      .filter(({ f }) =>
        filters.every((flt) => passes(f.cells[flt.figure as FigureName].value, flt.op, flt.value)),
      );
    const descending = input.sort_by.startsWith('-');
    rows.sort((a, b) => compareRows(a, b, sortKey, descending));

    const grouped = input.group_by
      ? await groupsOf(ctx, rows, input.group_by, columns, input.stale === true)
      : undefined;
    const perPage = input.per_page ?? (input.group_by ? 0 : MAX_PER_PAGE);
    const offset = (input.page - 1) * perPage;
    if (input.page > 1 && offset >= rows.length) {
      const last = Math.max(1, Math.ceil(rows.length / Math.max(perPage, 1)));
      throw new NotFound(`page ${input.page} is past the last page (${last}); request page 1 to ${last}`);
    }
    const results = rows.slice(offset, offset + perPage).map(({ c, f }) => toRow(c, f, columns)) as z.input<
      typeof ScreenRow
    >[];
    return {
      count: rows.length,
      page: input.page,
      per_page: perPage,
      has_more: offset + results.length < rows.length,
      results,
      firm_latest_month: portfolio.firmLatest === null ? null : monthText(portfolio.firmLatest),
      currency: portfolio.preferred,
      columns,
      ...grouped,
    };
  },
});

/** The last_reported_month filter: in, before or after a month; a company that never reported fails it. */
function lastReportedTest(filter: string | undefined): (month: number | null) => boolean {
  if (!filter) return () => true;
  const op = filter[0] === '<' || filter[0] === '>' ? filter[0] : '=';
  const bound = monthOf(`${filter.replace(/^[<>]/, '')}-01`);
  return (m) => m !== null && (op === '<' ? m < bound : op === '>' ? m > bound : m === bound);
}

/** Rows as one table: every field any row has, in first-seen order; null where a row has none. */
function rowsTable(rows: readonly Record<string, unknown>[]): Table {
  const columns = [...new Set(rows.flatMap((r) => Object.keys(r)))];
  return { columns, rows: rows.map((r) => columns.map((c) => r[c] ?? null)) };
}

function passes(value: string | null, op: keyof typeof OPS, bound: number): boolean {
  if (value === null) return false;
  return OPS[op](D.compareDecimal(value, D.decimalFromNumber(bound)!));
}

function toRow(c: PortfolioCompany, f: CompanyFigures, columns: readonly FigureName[]): ScreenRow {
  const row: ScreenRow = {
    company_id: c.company.id,
    name: c.company.name,
    status: c.company.status,
    sector: c.company.sector,
    reporting_currency: c.company.reporting_currency,
    last_reported_month: c.lastReported === null ? null : monthText(c.lastReported),
    stale: c.stale,
  };
  const reasons: Record<string, string> = {};
  for (const name of columns) {
    const cell = f.cells[name];
    row[name] = cell.value;
    if (cell.value === null) reasons[name] = cell.reason ?? 'not computed';
  }
  // Said only where it is not the reporting currency: money reported in several currencies is converted first.
  if (columns.some((n) => OWN_CURRENCY_GROWTH.includes(n)) && f.growthCurrency !== row.reporting_currency)
    row.growth_currency = f.growthCurrency;
  if (columns.some((n) => BUDGET_FIGURES.includes(n))) row.budget_period = f.budgetPeriod;
  if (Object.keys(reasons).length > 0) row.null_reasons = reasons;
  return row;
}

interface Ranked {
  c: PortfolioCompany;
  f: CompanyFigures;
}

function compareRows(a: Ranked, b: Ranked, key: string, descending: boolean): number {
  const ka = textKey(a, key);
  const kb = textKey(b, key);
  if (ka === null || kb === null) {
    if (ka !== kb) return ka === null ? 1 : -1;
  } else {
    const order = TEXT_SORTS.includes(key) ? ka.localeCompare(kb) : D.compareDecimal(ka, kb);
    if (order !== 0) return descending ? -order : order;
  }
  return a.c.company.name.localeCompare(b.c.company.name) || a.c.company.id.localeCompare(b.c.company.id);
}

function textKey(r: Ranked, key: string): string | null {
  if (key === 'name') return r.c.company.name;
  if (key === 'last_reported_month') return r.c.lastReported === null ? null : monthText(r.c.lastReported);
  return r.f.cells[key as FigureName].value;
}

/** Count and statistics per group and over all rows; a company in several funds is in each fund's group. */
async function groupsOf(
  ctx: ToolContext,
  rows: Ranked[],
  by: (typeof GROUPS)[number],
  columns: readonly FigureName[],
  withStale: boolean,
): Promise<{ groups: Group[]; total: Group }> {
  const members = new Map<string | null, Ranked[]>();
  const names = new Map<string, string>();
  const join = (key: string | null, r: Ranked) => members.set(key, [...(members.get(key) ?? []), r]);
  if (by === 'fund') {
    const links = await ctx.repos.analytics.companyFunds(
      ctx.principal.firm.id,
      rows.map((r) => r.c.company.id),
    );
    const byCompany = new Map<string, string[]>();
    for (const l of links) {
      names.set(l.fund_id, l.fund_name);
      byCompany.set(l.company_id, [...(byCompany.get(l.company_id) ?? []), l.fund_id]);
    }
    for (const r of rows) {
      const funds = byCompany.get(r.c.company.id) ?? [];
      if (funds.length === 0) join(null, r);
      for (const fund of funds) join(fund, r);
    }
  } else {
    for (const r of rows) join(r.c.company[by], r);
  }
  const group = (key: string | null, list: Ranked[]): Group => {
    const counted = withStale ? list : list.filter((r) => !r.c.stale);
    return {
      key,
      ...(by === 'fund' && key !== null ? { fund_name: names.get(key) } : {}),
      count: list.length,
      stale_count: list.filter((r) => r.c.stale).length,
      stats: Object.fromEntries(
        columns.map((col) => [col, statsOf(counted.map((r) => r.f.cells[col].value))]),
      ),
    };
  };
  const keyText = (k: string | null) => (k === null ? '' : by === 'fund' ? (names.get(k) ?? k) : k);
  const groups = [...members]
    .sort(([a], [b]) => (a === null ? 1 : b === null ? -1 : keyText(a).localeCompare(keyText(b))))
    .map(([key, list]) => group(key, list));
  return { groups, total: group(null, rows) };
}

/** Sum, median (the mean of the middle two for an even count), min and max of the non-null values. */
export function statsOf(values: readonly (string | null)[]): Stats {
  const known = values
    .filter((v): v is string => v !== null)
    .map((v) => D.readDecimal(v)!)
    .sort(D.compare);
  if (known.length === 0) return { values: 0, sum: null, median: null, min: null, max: null };
  const mid = Math.floor(known.length / 2);
  const median =
    known.length % 2 === 1
      ? known[mid]!
      : D.div(
          D.add(known[mid - 1]!, known[mid]!),
          D.fromInteger(2),
          Math.max(2, known[mid]!.scale, known[mid - 1]!.scale),
        );
  return {
    values: known.length,
    sum: D.toText(D.sum(known)),
    median: D.toText(median),
    min: D.toText(known[0]!),
    max: D.toText(known.at(-1)!),
  };
}
