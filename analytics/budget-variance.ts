// get_budget_variance without a company: every visible company's variance in its latest period where
// both the budget and the actuals are complete, ranked by variance %.
import { z } from 'zod';
import { byBudgetRule } from '../core/budget-rule.ts';
import { endOfMonth } from '../core/clock.ts';
import * as D from '../core/decimal.ts';
import type { AnalyticsDatum, FxRateRow } from '../db/repos/analytics.ts';
import type { BudgetRow } from '../db/repos/budgets.ts';
import type { CompanyRow } from '../db/repos/companies.ts';
import type { ReadContext } from './context.ts';
import {
  budgetCadence,
  cadenceWord,
  fiscalYearStart,
  PERIOD_MONTHS,
  type PeriodUnit,
  type Rolled,
  rollUp,
} from './periods.ts';
import { convertAmount, monthText, ratesByCurrency, toCompanyData } from './series.ts';

/** Categories where coming in above budget is the miss (spending), not below it. */
const LOWER_IS_BETTER = new Set([
  'net_burn',
  'burn_per_fte',
  'cost_of_goods_sold',
  'total_operating_expenses',
  'cash_payments',
  'churned_arr',
  'contraction_arr',
]);

export const BUDGET_RULE =
  'Where budgets overlap, the one with the latest budget date counts, then the latest created (a reforecast over its plan).';

export const RankedVariance = z.object({
  company_id: z.string(),
  company_name: z.string(),
  budget_id: z.string().describe('The budget that counts for the period.'),
  budget_name: z.string(),
  period: z
    .string()
    .describe('The period compared: YYYY-MM, YYYY-Qn, YYYY; fiscal FYyyyy-Qn, FYyyyy (the year it ends in).'),
  span: z.object({ from: z.string(), to: z.string() }).describe('The first and last month of the period.'),
  budget_cadence: z.string().nullable().describe("The budget's figures: monthly, quarterly, annual."),
  rolled_up_from: z
    .string()
    .nullable()
    .describe('The cadence summed into the period (monthly into a quarter, say); null when none was.'),
  figures: z.number().int().describe('Budget figures summed (or the one taken) for the period.'),
  budget: z.string().nullable().describe('Flow: summed over the period; stock: at its end.'),
  actual: z.string().nullable(),
  variance: z.string().nullable().describe('actual - budget.'),
  variance_pct: z.string().nullable().describe('variance / |budget| × 100, 2 decimals.'),
  currency: z.string().nullable(),
  in_firm_currency: z
    .object({ budget: z.string().nullable(), actual: z.string().nullable(), variance: z.string().nullable() })
    .describe("The three in the firm's currency at the period-end rate."),
  reason: z.string().nullable().describe('Why variance is null; null otherwise.'),
});
export type RankedVariance = z.infer<typeof RankedVariance>;

export interface RankInput {
  category: string;
  period: PeriodUnit;
  order: 'miss_first' | 'beat_first';
  /** Fiscal periods of each company's fiscal year instead of calendar ones. */
  fiscal?: boolean;
  /** Each company at its budget's own cadence (its latest budgeted month, quarter or year) instead of `period`. */
  own?: boolean;
}

interface CompanyRows {
  company: CompanyRow;
  budgets: Map<string, AnalyticsDatum[]>;
  actuals: AnalyticsDatum[];
}

export async function rankVariance(
  ctx: ReadContext,
  input: RankInput,
): Promise<{ rows: RankedVariance[]; firm_currency: string; miss_means: string; budget_rule: string }> {
  const { scope, firm } = ctx.principal;
  const preferred = firm.preferred_currency;
  const figures = (await ctx.repos.budgets.figures(scope, [input.category])).filter((f) => !f.archived);
  const ids = [...new Set(figures.map((f) => f.company_id))];
  const [budgets, companies, fx] = await Promise.all([
    ctx.repos.budgets.all(scope),
    ctx.repos.companies.names(scope, ids),
    ctx.repos.analytics.allFxRates(firm.id, preferred),
  ]);
  const since = figures[0] ? `${Number(figures[0].date.slice(0, 4)) - 1}${figures[0].date.slice(4)}` : '';
  const actuals = ids.length
    ? await ctx.repos.analytics.seriesMany(
        scope,
        ids,
        new Map([[input.category, since]]),
        endOfMonth(ctx.clock.now()),
      )
    : [];
  const byCompany = new Map<string, CompanyRows>();
  for (const id of ids) {
    const company = companies.get(id);
    if (company) byCompany.set(id, { company, budgets: new Map(), actuals: [] });
  }
  for (const f of figures) {
    const list = byCompany.get(f.company_id)?.budgets;
    list?.set(f.budget_id, [...(list.get(f.budget_id) ?? []), f]);
  }
  for (const a of actuals) if (!a.archived) byCompany.get(a.company_id)?.actuals.push(a);
  const budgetOf = new Map(budgets.map((b) => [b.id, b]));
  const rates = ratesByCurrency(fx);
  const rows = [...byCompany.values()]
    .map((c) => companyVariance(c, budgetOf, input, preferred, rates))
    .filter((r): r is RankedVariance => r !== null);
  const lowerIsBetter = LOWER_IS_BETTER.has(input.category);
  const missSign = lowerIsBetter === (input.order === 'miss_first') ? -1 : 1;
  rows.sort((a, b) => {
    if (a.variance_pct === null || b.variance_pct === null)
      return a.variance_pct === b.variance_pct
        ? a.company_name.localeCompare(b.company_name)
        : a.variance_pct === null
          ? 1
          : -1;
    return (
      missSign * D.compareDecimal(a.variance_pct, b.variance_pct) ||
      a.company_name.localeCompare(b.company_name)
    );
  });
  return {
    rows,
    firm_currency: preferred,
    miss_means: lowerIsBetter ? 'actual above budget' : 'actual below budget',
    budget_rule: BUDGET_RULE,
  };
}

/** One company's variance in its latest comparable period (or its latest budgeted one). */
function companyVariance(
  c: CompanyRows,
  budgetOf: Map<string, BudgetRow>,
  input: RankInput,
  preferred: string,
  rates: Map<string, FxRateRow[]>,
): RankedVariance | null {
  const reporting = c.company.reporting_currency;
  const ranked = [...c.budgets.keys()]
    .map((id) => budgetOf.get(id)!)
    .filter(Boolean)
    .sort(byBudgetRule);
  // At its own cadence: the cadence of the budget that counts, never of an older plan beside it.
  const figures = ranked[0] ? c.budgets.get(ranked[0].id)! : [];
  const unit = input.own ? ownUnit(figures) : input.period;
  // At its own cadence, a budget of fiscal quarters (or years) is compared in those, not in calendar ones.
  const fiscal = input.fiscal || (input.own && !endsCalendarPeriods(figures, unit));
  const yearStart = fiscal ? fiscalYearStart(c.company.fiscal_year_end) : 0;
  const roll = (rows: AnalyticsDatum[]) => {
    const data = toCompanyData(rows, reporting, preferred, rates);
    const rolled = rollUp(
      input.category,
      data.byCategory.get(input.category) ?? [],
      unit,
      undefined,
      yearStart,
    );
    return { currency: data.currency, byPeriod: byLabel(rolled) };
  };
  const actual = roll(c.actuals);
  const actualByPeriod = actual.byPeriod;
  const plans = ranked.map((budget) => ({
    budget,
    cadences: c.budgets.get(budget.id)!.map((f) => f.cadence),
    ...roll(c.budgets.get(budget.id)!),
  }));
  // Per period the first budget by the rule with a figure in it counts.
  const counted = new Map<string, { plan: (typeof plans)[number]; rolled: Rolled }>();
  for (const plan of plans) {
    for (const [label, rolled] of plan.byPeriod) {
      if (!counted.has(label) && rolled.rows.length > 0) counted.set(label, { plan, rolled });
    }
  }
  const periods = [...counted.values()].sort((a, b) => b.rolled.from - a.rolled.from);
  if (periods.length === 0) return null;
  const chosen =
    periods.find((p) => p.rolled.complete && actualByPeriod.get(p.rolled.label)?.complete) ?? periods[0]!;
  const { plan, rolled } = chosen;
  const real = actualByPeriod.get(rolled.label);
  const step = rolled.cadence ? cadenceWord(rolled.cadence) : null;
  const base = {
    company_id: c.company.id,
    company_name: c.company.name,
    budget_id: plan.budget.id,
    budget_name: plan.budget.name,
    period: rolled.label,
    span: { from: monthText(rolled.from), to: monthText(rolled.to) },
    budget_cadence: budgetCadence(plan.cadences),
    rolled_up_from: step && rolled.rows.length > 1 ? step : null,
    figures: rolled.rows.length,
    currency: plan.currency,
  };
  return compared(base, rolled, real, actual.currency, unit, preferred, rates);
}

/** The variance of one company's period, or why there is none. */
function compared(
  base: Omit<
    RankedVariance,
    'budget' | 'actual' | 'variance' | 'variance_pct' | 'in_firm_currency' | 'reason'
  >,
  rolled: Rolled,
  real: Rolled | undefined,
  actualCurrency: string | null,
  unit: PeriodUnit,
  preferred: string,
  rates: Map<string, FxRateRow[]>,
): RankedVariance {
  const plan = { currency: base.currency };
  const actual = { currency: actualCurrency };
  const convert = (v: D.Decimal | null, currency: string | null) =>
    v === null
      ? null
      : (convertAmount(D.toText(v), currency, monthText(rolled.to), preferred, rates)?.value ?? null);
  const budgetValue = rolled.complete ? rolled.value : null;
  const actualValue = real?.complete ? real.value : null;
  const row: RankedVariance = {
    ...base,
    budget: budgetValue && D.toText(budgetValue),
    actual: actualValue && D.toText(actualValue),
    variance: null,
    variance_pct: null,
    in_firm_currency: {
      budget: convert(budgetValue, plan.currency),
      actual: convert(actualValue, actual.currency),
      variance: null,
    },
    reason: null,
  };
  const periodMonths = PERIOD_MONTHS[unit];
  if (budgetValue === null)
    return {
      ...row,
      reason: rolled.reason ?? `the budget does not cover all ${periodMonths} months of the period`,
    };
  if (actualValue === null)
    return { ...row, reason: real?.reason ?? 'no complete actuals for any budgeted period' };
  if (actual.currency && plan.currency && actual.currency !== plan.currency)
    return { ...row, reason: `actual is in ${actual.currency}, budget in ${plan.currency}` };
  const variance = D.sub(actualValue, budgetValue);
  row.variance = D.toText(variance);
  row.in_firm_currency.variance = convert(variance, plan.currency);
  if (D.sign(budgetValue) === 0) return { ...row, reason: 'the budget is 0, so there is no percentage' };
  row.variance_pct = D.toFixed(D.mul(D.div(variance, D.abs(budgetValue), 12), D.fromInteger(100)), 2);
  return row;
}

/** The period a company's budget figures are in: monthly figures give months; else quarters, else years. */
function ownUnit(figures: readonly AnalyticsDatum[]): PeriodUnit {
  const cadences = new Set(figures.map((f) => f.cadence));
  if (cadences.has('month') || cadences.has('point_in_time') || cadences.size === 0) return 'month';
  return cadences.has('quarter') ? 'quarter' : 'year';
}

/** Whether the latest flow figure ends a calendar period of `unit`. */
function endsCalendarPeriods(figures: readonly AnalyticsDatum[], unit: PeriodUnit): boolean {
  const last = figures.filter((f) => f.cadence !== 'point_in_time').at(-1);
  return !last || Number(last.date.slice(5, 7)) % PERIOD_MONTHS[unit] === 0;
}

function byLabel(rolled: Rolled[]): Map<string, Rolled> {
  return new Map(rolled.map((r) => [r.label, r]));
}
