// The screen's figures of one company, every one a decimal string (money in the firm's currency) or null with
// the reason. One function per company, over data already loaded, so a store of precomputed figures can
// replace it without touching the screen.
import * as D from '../core/decimal.ts';
import type { AnalyticsDatum, FxRateRow } from '../db/repos/analytics.ts';
import type { Figure } from './figure.ts';
import { growth, percentChange, trailingSum } from './figures.ts';
import { figurePeriod, flowActual } from './periods.ts';
import type { PortfolioCompany } from './portfolio.ts';
import {
  BUDGET_FIGURES,
  type Cell,
  type CompanyFigures,
  type FigureName,
  INVESTMENT_FIGURES,
} from './screen-figures.ts';
import {
  chooseSeries,
  convertAmount,
  latestIn,
  type Month,
  monthOf,
  monthText,
  NO_COMPANY_DATA,
} from './series.ts';

/** The latest budget's revenue figures of a company. */
export interface BudgetRevenue {
  budget_name: string;
  figures: AnalyticsDatum[];
}

/** The company's line of get_investment_metrics. */
export interface Investment {
  ownership: number | null;
  moic: string | null;
  fair_value: string;
  post_money_valuation: string | null;
}

/** What one company's figures are computed from; budget and investment only when those figures were asked. */
export interface CompanyInputs {
  portfolio: PortfolioCompany;
  /** Undefined: not loaded; null: the company has no budget. */
  budget?: BudgetRevenue | null;
  /** Undefined: not loaded; null: the firm's funds hold nothing of the company. */
  investment?: Investment | null;
  /** Why position figures are withheld from this caller; null when they may be shown. */
  positionsWithheld?: string | null;
  asOfDate: string;
}

const cell = (value: string | null, reason: string | null = null): Cell =>
  value === null ? { value, reason: reason ?? 'not computed' } : { value, reason: null };

const fromFigure = (f: Figure): Cell => cell(f.value, f.reason);

/** Every figure of one company. */
export function companyFigures(
  inputs: CompanyInputs,
  preferred: string,
  rates: Map<string, FxRateRow[]>,
): CompanyFigures {
  const { summary, data } = inputs.portfolio;
  const money = (f: Figure): Cell => {
    if (f.value === null) return cell(null, f.reason);
    const converted = convertAmount(f.value, f.currency, f.period?.to ?? null, preferred, rates);
    return cell(converted?.value ?? null, converted?.reason);
  };
  const own = ownCurrencyFigures(inputs.portfolio, preferred, rates);
  const budget = budgetFigures(inputs, preferred, rates);
  const cells = {
    cash_in_bank: money(summary.latest.cash_in_bank),
    arr: money(summary.latest.arr),
    arr_growth_yoy: fromFigure(own.arrGrowth),
    arr_growth_yoy_firm_currency: own.arrGrowthFirm,
    revenue_ttm: money(summary.ttm_revenue),
    revenue_growth_yoy: fromFigure(summary.revenue_growth_yoy),
    revenue_growth_yoy_firm_currency: own.revenueGrowthFirm,
    net_burn_avg_3m: money(summary.net_burn_avg_3m),
    runway_months: fromFigure(summary.runway_months),
    burn_multiple: fromFigure(summary.burn_multiple),
    gross_margin_ttm: fromFigure(summary.gross_margin_ttm),
    headcount: fromFigure(summary.latest.headcount),
    headcount_change_12m: own.headcountChange,
    headcount_change_12m_pct: fromFigure(own.headcountGrowth),
    ...budget.cells,
    ...investmentFigures(inputs),
  } as Record<FigureName, Cell>;
  return { cells, growthCurrency: data.currency, budgetPeriod: budget.period };
}

/** The growth figures that need the series themselves: ARR and headcount over 12 months, and growth in the firm's currency. */
function ownCurrencyFigures(c: PortfolioCompany, preferred: string, rates: Map<string, FxRateRow[]>) {
  const { data, summary } = c;
  const E = data.asOf;
  const none = cell(null, NO_COMPANY_DATA);
  if (E === null) {
    const nullGrowth = { ...summary.revenue_growth_yoy };
    return {
      arrGrowth: nullGrowth,
      arrGrowthFirm: none,
      revenueGrowthFirm: none,
      headcountChange: none,
      headcountGrowth: nullGrowth,
    };
  }
  const obs = (category: string) => data.byCategory.get(category) ?? [];
  const start = E - 11;
  const arr = chooseSeries('arr', obs('arr'), start, E);
  const arrLatest = latestIn(arr, start, E);
  const arrGrowth = growth('arr', arr, arrLatest, 12, 'year-on-year');
  const heads = chooseSeries('headcount', obs('headcount'), start, E);
  const headsLatest = latestIn(heads, start, E);
  const headcountGrowth = growth('headcount', heads, headsLatest, 12, 'year-on-year');
  const headsBase = headsLatest && heads.byMonth.get(headsLatest.month - 12);

  /** Growth of two amounts of the company's currency, each converted as converted values are: at the end of its month. */
  const inFirmCurrency = (
    reported: Figure,
    base: [D.Decimal, Month] | null,
    latest: [D.Decimal, Month] | null,
  ): Cell => {
    if (reported.value === null || !base || !latest) return cell(null, reported.reason);
    const [b, l] = [base, latest].map(([v, m]) =>
      convertAmount(D.toText(v), data.currency, monthText(m), preferred, rates),
    );
    if (!b?.value || !l?.value) return cell(null, b?.reason ?? l?.reason);
    return cell(D.toFixed(percentChange(D.readDecimal(b.value)!, D.readDecimal(l.value)!), 2));
  };
  const arrBase = arrLatest && arr.byMonth.get(arrLatest.month - 12);
  const now = trailingSum('revenue', obs('revenue'), E, 12);
  const before = trailingSum('revenue', obs('revenue'), E - 12, 12);
  const endOf = (t: typeof now) => (t.period ? monthOf(`${t.period.to}-01`) : E);
  return {
    arrGrowth,
    arrGrowthFirm: inFirmCurrency(
      arrGrowth,
      arrBase?.value ? [arrBase.value, arrBase.month] : null,
      arrLatest?.value ? [arrLatest.value, arrLatest.month] : null,
    ),
    revenueGrowthFirm: inFirmCurrency(
      summary.revenue_growth_yoy,
      before.total ? [before.total, endOf(before)] : null,
      now.total ? [now.total, endOf(now)] : null,
    ),
    headcountChange:
      headsLatest?.value && headsBase?.value
        ? cell(D.toText(D.sub(headsLatest.value, headsBase.value)))
        : cell(null, headcountGrowth.reason ?? NO_COMPANY_DATA),
    headcountGrowth,
  };
}

/**
 * Revenue against the latest budget in its latest period up to the as-of month that has reported revenue:
 * budget, actual and (actual − budget) / |budget| × 100, as get_budget_variance computes them.
 */
function budgetFigures(inputs: CompanyInputs, preferred: string, rates: Map<string, FxRateRow[]>) {
  const blank = (reason: string) => ({
    cells: Object.fromEntries(BUDGET_FIGURES.map((f) => [f, cell(null, reason)])) as Record<string, Cell>,
    period: null,
  });
  const { budget } = inputs;
  const { data, company } = inputs.portfolio;
  if (budget === undefined) return blank('not loaded');
  if (budget === null) return blank('the company has no budget');
  if (data.asOf === null) return blank(NO_COMPANY_DATA);
  const asOf = data.asOf;
  const actuals = (data.byCategory.get('revenue') ?? []).filter((o) => !o.archived);
  const candidates = budget.figures.filter((f) => monthOf(f.date) <= asOf).reverse();
  for (const f of candidates) {
    const actual = flowActual(f, actuals);
    if (!actual) continue;
    const period = figurePeriod(f.cadence, f.date);
    const currency = f.currency ?? company.reporting_currency;
    const reason = (text: string) => ({ ...blank(text), period });
    if (currency !== data.currency) return reason(`budget is in ${currency}, actuals in ${data.currency}`);
    const planned = D.readDecimal(f.value);
    if (!planned || !actual.value) return reason('a value is not a number');
    const month = monthText(monthOf(f.date));
    const inFirm = (v: D.Decimal) => {
      const c = convertAmount(D.toText(v), currency, month, preferred, rates);
      return cell(c?.value ?? null, c?.reason);
    };
    const variance = D.sub(actual.value, planned);
    return {
      cells: {
        budget_revenue: inFirm(planned),
        budget_revenue_actual: inFirm(actual.value),
        budget_revenue_variance_pct:
          D.sign(planned) === 0
            ? cell(null, 'the budget is 0, so there is no percentage')
            : cell(D.toFixed(D.mul(D.div(variance, D.abs(planned), 12), D.fromInteger(100)), 2)),
      },
      period,
    };
  }
  return blank(
    budget.figures.length === 0
      ? `budget "${budget.budget_name}" has no revenue figures`
      : `no reported revenue for a period of budget "${budget.budget_name}" up to ${monthText(asOf)}`,
  );
}

/** Valuation, ownership (in percent), MOIC and fair value from get_investment_metrics' line of the company. */
function investmentFigures(inputs: CompanyInputs): Record<string, Cell> {
  const { investment, positionsWithheld } = inputs;
  if (investment === undefined)
    return Object.fromEntries(INVESTMENT_FIGURES.map((f) => [f, cell(null, 'not loaded')]));
  const none = `the firm's funds hold no security of the company on or before ${inputs.asOfDate}`;
  const positions = (value: string | null, reason: string): Cell =>
    positionsWithheld ? cell(null, positionsWithheld) : investment ? cell(value, reason) : cell(null, none);
  const ownership =
    investment?.ownership === null || investment?.ownership === undefined
      ? null
      : D.toFixed(D.mul(D.readDecimal(investment.ownership.toFixed(10))!, D.fromInteger(100)), 2);
  return {
    post_money_valuation: investment
      ? cell(investment.post_money_valuation, 'no financing round with a pre-money valuation')
      : cell(null, none),
    ownership_pct: positions(ownership, 'fully diluted shares unknown'),
    moic: positions(investment?.moic ?? null, 'nothing invested'),
    fair_value: positions(investment?.fair_value ?? null, 'not computed'),
  };
}
