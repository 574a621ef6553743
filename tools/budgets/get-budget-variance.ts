import { z } from 'zod';
import { BUDGET_RULE, RankedVariance, rankVariance } from '../../analytics/budget-variance.ts';
import { budgetCadence, figurePeriod, flowActual, PERIOD_UNITS } from '../../analytics/periods.ts';
import {
  normaliseCategoryName,
  STANDARD_CATEGORIES,
  STANDARD_CATEGORY_NAMES,
  suggestCategory,
} from '../../core/categories.ts';
import { abs, div, fromInteger, mul, readDecimal, sign, sub, toFixed, toText } from '../../core/decimal.ts';
import type { AnalyticsDatum } from '../../db/repos/analytics.ts';
import { Table, toTable } from '../concise.ts';
import { defineTool, readOnly, restPaging } from '../define.ts';
import { InvalidInput, NotFound } from '../errors.ts';
import { resolveCompany } from '../schemas/company-ref.ts';
import { isoDateField } from '../schemas/dates.ts';
import { listOf, pageFields, pageResult } from '../schemas/page.ts';

const VarianceRow = z.object({
  category: z.string(),
  kind: z.enum(['flow', 'stock']).describe('flow: compared over its period; stock: compared at its date.'),
  cadence: z.string(),
  period: z.string().describe('The period compared: YYYY-MM, YYYY-Qn, YYYY-Hn or YYYY.'),
  date: z.string().describe('Date of the budget figure, YYYY-MM-DD.'),
  currency: z.string().nullable(),
  budget: z.string().describe('Budgeted value, decimal string.'),
  actual: z
    .string()
    .nullable()
    .describe('Reported value for the same period (flow) or date (stock); null when none.'),
  actual_date: z.string().nullable().describe('Date of the reported value used.'),
  variance: z
    .string()
    .nullable()
    .describe('actual - budget; null when it cannot be computed, with the reason.'),
  variance_pct: z
    .string()
    .nullable()
    .describe('variance / |budget| in percent, 2 decimals (12.50 means 12.5 %); null when the budget is 0.'),
  reason: z.string().nullable().describe('Why variance or variance_pct is null; null otherwise.'),
});
type VarianceRow = z.infer<typeof VarianceRow>;

const pointInTime = new Map(STANDARD_CATEGORIES.map((c) => [c.name, c.pointInTime]));

/** The reported value a budget figure is compared with: same period and cadence (flow), or the latest of its month up to its date (stock). */
function matchingActual(figure: AnalyticsDatum, stock: boolean, actuals: readonly AnalyticsDatum[]) {
  const reported = actuals.filter((a) => a.category === figure.category);
  if (!stock) return flowActual(figure, reported);
  // Oldest first from the repository: the last is the latest date.
  return reported
    .filter((a) => a.date.slice(0, 7) === figure.date.slice(0, 7) && a.date <= figure.date)
    .at(-1);
}

function compare(figure: AnalyticsDatum, stock: boolean, actuals: readonly AnalyticsDatum[]): VarianceRow {
  const actual = matchingActual(figure, stock, actuals);
  const row: VarianceRow = {
    category: figure.category,
    kind: stock ? 'stock' : 'flow',
    cadence: figure.cadence,
    period: stock ? figure.date : figurePeriod(figure.cadence, figure.date),
    date: figure.date,
    currency: figure.currency,
    budget: figure.value,
    actual: actual?.value ?? null,
    actual_date: actual?.date ?? null,
    variance: null,
    variance_pct: null,
    reason: null,
  };
  if (!actual)
    return {
      ...row,
      reason: stock ? 'no value reported in that month up to the date' : 'no value reported for that period',
    };
  if (actual.currency && figure.currency && actual.currency !== figure.currency)
    return { ...row, reason: `actual is in ${actual.currency}, budget in ${figure.currency}` };
  const budget = readDecimal(figure.value);
  const reported = readDecimal(actual.value);
  if (!budget || !reported) return { ...row, reason: 'a value is not a number' };
  const variance = sub(reported, budget);
  row.variance = toText(variance);
  if (sign(budget) === 0) return { ...row, reason: 'the budget is 0, so there is no percentage' };
  row.variance_pct = toFixed(mul(div(variance, abs(budget), 12), fromInteger(100)), 2);
  return row;
}

export const getBudgetVariance = defineTool({
  name: 'get_budget_variance',
  title: 'Budget against actual',
  description:
    "A company's budget against actuals per category and period: budget, actual, variance, variance %; flows per period, stocks at each budget date. No company_id: ranks every company by variance % in its latest complete period.",
  input: z.object({
    company_id: z.string().min(1).optional().describe('Company id; omitted: rank every company.'),
    budget_id: z
      .string()
      .min(1)
      .optional()
      .describe("Budget id (list_budgets); default: the company's latest-dated budget."),
    from_date: isoDateField('Budget figures from this date.'),
    to_date: isoDateField('Budget figures up to this date.'),
    category: z
      .string()
      .min(1)
      .optional()
      .describe('A standard category, e.g. revenue (ranking default) or net_burn.'),
    period: z
      .enum([...PERIOD_UNITS, 'budget'])
      .default('month')
      .describe("Ranking period, flows summed; budget: each company's budget cadence."),
    fiscal: z.boolean().default(false).describe('Fiscal quarters/years.'),
    order: z
      .enum(['miss_first', 'beat_first'])
      .default('miss_first')
      .describe('Ranking: biggest miss or beat first.'),
    ...pageFields,
  }),
  output: listOf(z.union([VarianceRow, RankedVariance])).extend({
    company_id: z.string().nullable().describe('The company; null when ranking.'),
    company_name: z.string().nullable(),
    budget_id: z.string().nullable(),
    budget_name: z.string().nullable(),
    budget_cadence: z.string().nullable().describe('monthly, quarterly, annual; null when ranking.'),
    ranking: z
      .object({
        category: z.string(),
        firm_currency: z.string(),
        miss_means: z.string().describe('actual below budget, or above it for spending such as net_burn.'),
        budget_rule: z.string().describe(BUDGET_RULE),
      })
      .nullable()
      .describe('How the ranking reads; null with company_id.'),
  }),
  annotations: readOnly,
  concise: ({ results, ...rest }) => ({ ...rest, variances: varianceTable(results) }),
  conciseOutput: z.object({ variances: Table }),
  routes: [
    {
      method: 'GET',
      path: '/v1/budgets/variance/',
      summary: 'Budget against actual of one company',
      rename: restPaging,
    },
  ],
  async handler(ctx, input) {
    const { repos, principal } = ctx;
    const categories = input.category ? [standardCategory(input.category)] : STANDARD_CATEGORY_NAMES;
    if (!input.company_id) {
      for (const field of ['budget_id', 'from_date', 'to_date'] as const)
        if (input[field])
          throw InvalidInput.field(field, 'needs company_id; the ranking uses each latest period');
      const category = categories.length === 1 ? categories[0]! : 'revenue';
      const own = input.period === 'budget';
      const ranked = await rankVariance(ctx, {
        ...input,
        category,
        own,
        period: input.period === 'budget' ? 'month' : input.period,
      });
      const { firm_currency, miss_means, budget_rule, rows } = ranked;
      const slice = rows.slice((input.page - 1) * input.per_page, input.page * input.per_page);
      return {
        ...pageResult(input, { count: rows.length, rows: slice }, (r) => r),
        company_id: null,
        company_name: null,
        budget_id: null,
        budget_name: null,
        budget_cadence: null,
        ranking: { category, firm_currency, miss_means, budget_rule },
      };
    }
    const company = (await resolveCompany(ctx, { company_id: input.company_id }))!;
    if (input.from_date && input.to_date && input.from_date > input.to_date)
      throw InvalidInput.field('from_date', `must not be after to_date (${input.to_date})`);
    const budget = input.budget_id
      ? await repos.budgets.get(principal.scope, input.budget_id)
      : await repos.budgets.latest(principal.scope, company.id);
    if (!budget || budget.company_id !== company.id) {
      throw new NotFound(
        input.budget_id
          ? `no budget with id ${input.budget_id} for company ${company.id}; list_budgets with company_id lists them`
          : `company ${company.id} has no budget; list_budgets lists the budgets you can see`,
      );
    }
    const from = input.from_date ?? '0001-01-01';
    const to = input.to_date ?? '9999-12-31';
    const figures = (
      await repos.analytics.series(principal.scope, company.id, categories, from, to, budget.id)
    ).filter((f) => !f.archived);
    // Actuals from a year before the first figure: a yearly flow's period can start that early.
    const first = figures[0]?.date ?? from;
    const since = `${String(Number(first.slice(0, 4)) - 1).padStart(4, '0')}${first.slice(4)}`;
    const last = figures.at(-1)?.date ?? to;
    const actuals = figures.length
      ? (await repos.analytics.series(principal.scope, company.id, categories, since, last)).filter(
          (a) => !a.archived,
        )
      : [];
    const rows = figures
      .map((f) => compare(f, pointInTime.get(f.category) ?? false, actuals))
      .sort((a, b) => a.category.localeCompare(b.category) || a.date.localeCompare(b.date));
    const offset = (input.page - 1) * input.per_page;
    if (input.page > 1 && offset >= rows.length) {
      const lastPage = Math.max(1, Math.ceil(rows.length / input.per_page));
      throw new NotFound(
        `page ${input.page} is past the last page (${lastPage}); request page 1 to ${lastPage}`,
      );
    }
    return {
      count: rows.length,
      page: input.page,
      per_page: input.per_page,
      has_more: offset + input.per_page < rows.length,
      results: rows.slice(offset, offset + input.per_page),
      company_id: company.id,
      company_name: company.name,
      budget_id: budget.id,
      budget_name: budget.name,
      budget_cadence: budgetCadence(figures.map((f) => f.cadence)),
      ranking: null,
    };
  },
});

/** The standard category a name means, matched case-insensitively; an unknown name is a 400 with a suggestion. */
function standardCategory(text: string): string {
  const name = normaliseCategoryName(text);
  if (STANDARD_CATEGORY_NAMES.includes(name)) return name;
  const suggestion = suggestCategory(text, STANDARD_CATEGORY_NAMES);
  throw InvalidInput.field(
    'category',
    `unknown standard category "${text}"; ${suggestion ? `did you mean "${suggestion}"? ` : ''}get_metrics_options lists every valid name`,
  );
}

/** The concise rows: one table; a ranking row's months as `from/to` (one month alone), firm-currency figures flat. */
function varianceTable(rows: readonly (VarianceRow | RankedVariance)[]): Table {
  if (!rows.some((r) => 'company_id' in r))
    return toTable(rows as VarianceRow[], [
      'category',
      'kind',
      'cadence',
      'period',
      'date',
      'currency',
      'budget',
      'actual',
      'actual_date',
      'variance',
      'variance_pct',
      'reason',
    ]);
  const flat = (rows as RankedVariance[]).map(({ span, in_firm_currency, ...r }) => ({
    ...r,
    span: span.from === span.to ? span.from : `${span.from}/${span.to}`,
    firm_budget: in_firm_currency.budget,
    firm_actual: in_firm_currency.actual,
    firm_variance: in_firm_currency.variance,
  }));
  return toTable(flat, [
    'company_id',
    'company_name',
    'budget_name',
    'period',
    'span',
    'budget_cadence',
    'rolled_up_from',
    'figures',
    'currency',
    'budget',
    'actual',
    'variance',
    'variance_pct',
    'firm_budget',
    'firm_actual',
    'firm_variance',
    'reason',
  ]);
}
