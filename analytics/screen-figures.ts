// The names and units of the screen's figures, and what one company's figures are: shared by the
// computation, the portfolio cache and the alert rules.

/** Every figure the screen can return, with its unit. */
export const FIGURE_UNITS = {
  cash_in_bank: 'money',
  arr: 'money',
  arr_growth_yoy: 'percent',
  arr_growth_yoy_firm_currency: 'percent',
  revenue_ttm: 'money',
  revenue_growth_yoy: 'percent',
  revenue_growth_yoy_firm_currency: 'percent',
  net_burn_avg_3m: 'money',
  runway_months: 'months',
  burn_multiple: 'multiple',
  gross_margin_ttm: 'percent',
  headcount: 'number',
  headcount_change_12m: 'number',
  headcount_change_12m_pct: 'percent',
  budget_revenue: 'money',
  budget_revenue_actual: 'money',
  budget_revenue_variance_pct: 'percent',
  post_money_valuation: 'money',
  ownership_pct: 'percent',
  moic: 'multiple',
  fair_value: 'money',
} as const;
export type FigureName = keyof typeof FIGURE_UNITS;
export const FIGURE_NAMES = Object.keys(FIGURE_UNITS) as [FigureName, ...FigureName[]];

export const BUDGET_FIGURES: readonly FigureName[] = [
  'budget_revenue',
  'budget_revenue_actual',
  'budget_revenue_variance_pct',
];
export const INVESTMENT_FIGURES: readonly FigureName[] = [
  'post_money_valuation',
  'ownership_pct',
  'moic',
  'fair_value',
];
/** Growth figures computed in the company's own money (see `growth_currency`). */
export const OWN_CURRENCY_GROWTH: readonly FigureName[] = ['arr_growth_yoy', 'revenue_growth_yoy'];

export interface Cell {
  value: string | null;
  reason: string | null;
}

export interface CompanyFigures {
  cells: Record<FigureName, Cell>;
  /** The currency arr_growth_yoy and revenue_growth_yoy are computed in; null without money data. */
  growthCurrency: string | null;
  /** The budgeted period compared (YYYY-MM, YYYY-Qn or YYYY); null when none. */
  budgetPeriod: string | null;
}
