import { createHash } from 'node:crypto';

export type ValueKind = 'currency' | 'percentage' | 'number' | 'multiple' | 'months' | 'text' | 'select';

export interface StandardCategory {
  name: string;
  kind: ValueKind;
  /** Stocks are point-in-time; flows have month, quarter and year cadences. */
  pointInTime: boolean;
}

const C = (name: string, kind: ValueKind, pointInTime: boolean): StandardCategory => ({
  name,
  kind,
  pointInTime,
});

export const STANDARD_CATEGORIES: readonly StandardCategory[] = [
  C('accounts_payable', 'currency', true),
  C('accounts_receivable', 'currency', true),
  C('arr', 'currency', true),
  C('assets', 'currency', true),
  C('burn_per_fte', 'currency', false),
  C('cash_flow_from_financing_activities', 'currency', false),
  C('cash_flow_from_investing_activities', 'currency', false),
  C('cash_flow_from_operating_activities', 'currency', false),
  C('cash_in_bank', 'currency', true),
  C('cash_payments', 'currency', false),
  C('cash_receipts', 'currency', false),
  C('churned_arr', 'currency', false),
  C('contraction_arr', 'currency', false),
  C('cost_of_goods_sold', 'currency', false),
  C('current_assets', 'currency', true),
  C('current_liabilities', 'currency', true),
  C('ebitda', 'currency', false),
  C('equity', 'currency', true),
  C('expansion_arr', 'currency', false),
  C('fair_value', 'currency', true),
  C('fully_diluted_shares', 'number', true),
  C('gross_irr', 'percentage', true),
  C('gross_margin', 'percentage', false),
  C('gross_profit', 'currency', false),
  C('headcount', 'number', true),
  C('investment_amount', 'currency', true),
  C('latest_price_per_share', 'currency', true),
  C('liabilities', 'currency', true),
  C('long_term_liabilities', 'currency', true),
  C('moic', 'multiple', true),
  C('net_assets', 'currency', true),
  C('net_burn', 'currency', false),
  C('net_income', 'currency', false),
  C('net_new_arr', 'currency', false),
  C('net_operating_profit', 'currency', false),
  C('net_other_income', 'currency', false),
  C('net_profit', 'currency', false),
  C('new_logo_arr', 'currency', false),
  C('non_current_assets', 'currency', true),
  C('operating_margin', 'percentage', false),
  C('other_non_current_assets', 'currency', true),
  C('ownership', 'percentage', true),
  C('post_money_valuation', 'currency', true),
  C('pre_money_valuation', 'currency', true),
  C('property_plants_and_equipment', 'currency', true),
  C('reactivation_arr', 'currency', false),
  C('realized_value', 'currency', true),
  C('revenue', 'currency', false),
  C('revenue_growth', 'percentage', false),
  C('revenue_per_fte', 'currency', false),
  C('runway', 'months', true),
  C('short_term_investments', 'currency', true),
  C('total_change_in_cash', 'currency', false),
  C('total_operating_expenses', 'currency', false),
  C('total_shares_owned', 'number', true),
];

/** `custom` is the 60th name: a selector for every custom metric, not a category of its own. */
export const CUSTOM_CATEGORY = 'custom';

export const STANDARD_CATEGORY_NAMES: readonly string[] = STANDARD_CATEGORIES.map((c) => c.name);

export const FLOW_CADENCES = ['month', 'quarter', 'year'] as const;
export const ALL_CADENCES = [
  'point_in_time',
  'day',
  'week',
  'month',
  'quarter',
  'half_year',
  'year',
] as const;
export type Cadence = (typeof ALL_CADENCES)[number];

/** Categories whose values are amounts of money carry a currency. */
export function isMonetary(kind: string): boolean {
  return kind === 'currency';
}

export function isNumericKind(kind: string): boolean {
  return kind !== 'text' && kind !== 'select';
}

/** Stable ids for the standard categories, identical on every installation. */
export function standardCategoryId(name: string): string {
  return `std_${createHash('sha256').update(name).digest('base64url').slice(0, 10)}`;
}

/** Choices of a select metric, stored as a JSON array of strings; empty for anything else. */
export function parseChoices(text: unknown): string[] {
  if (typeof text !== 'string' || !text) return [];
  try {
    const parsed: unknown = JSON.parse(text);
    return Array.isArray(parsed) ? parsed.map(String) : [];
  } catch {
    return [];
  }
}

/** Custom metrics by display name: the exact name, else the one name that differs only in case. */
export class CustomMetricNames<T extends { name: string }> {
  private readonly exact = new Map<string, T>();
  private readonly folded = new Map<string, T[]>();

  add(row: T): void {
    this.exact.set(row.name, row);
    const key = row.name.toLowerCase();
    this.folded.set(key, [...(this.folded.get(key) ?? []), row]);
  }

  /** Undefined when no name matches, or several match but for case. */
  find(name: string): T | undefined {
    const exact = this.exact.get(name);
    if (exact) return exact;
    const folded = this.folded.get(name.toLowerCase());
    return folded?.length === 1 ? folded[0] : undefined;
  }

  /** In the order they were added. */
  names(): string[] {
    return [...this.exact.keys()];
  }

  rows(): T[] {
    return [...this.exact.values()];
  }
}

/** Levenshtein distance, case-insensitive. */
export function editDistance(a: string, b: string): number {
  const s = a.toLowerCase();
  const t = b.toLowerCase();
  let previous = Array.from({ length: t.length + 1 }, (_, j) => j);
  for (let i = 1; i <= s.length; i++) {
    const current = [i];
    for (let j = 1; j <= t.length; j++) {
      const cost = s[i - 1] === t[j - 1] ? 0 : 1;
      current[j] = Math.min(previous[j]! + 1, current[j - 1]! + 1, previous[j - 1]! + cost);
    }
    previous = current;
  }
  return previous[t.length]!;
}

/** The candidate nearest to `input` by edit distance (ties: the first in order), with that distance. */
export function nearestName(
  input: string,
  candidates: Iterable<string>,
): { name: string; distance: number } | undefined {
  let best: { name: string; distance: number } | undefined;
  for (const name of candidates) {
    const distance = editDistance(input, name);
    if (!best || distance < best.distance) best = { name, distance };
  }
  return best;
}

/** How people name a standard category, normalised: "Net Burn", "net-burn" and "NET_BURN" are net_burn. */
export function normaliseCategoryName(name: string): string {
  return name
    .trim()
    .toLowerCase()
    .replace(/[\s-]+/g, '_');
}

/** Words analysts use for a standard category (or its nearest one), which spelling alone would not find. */
const CATEGORY_SYNONYMS: Readonly<Record<string, string>> = {
  burn: 'net_burn',
  burn_rate: 'net_burn',
  cash_burn: 'net_burn',
  mrr: 'arr',
  recurring_revenue: 'arr',
  cash: 'cash_in_bank',
  cash_balance: 'cash_in_bank',
  employees: 'headcount',
  fte: 'headcount',
  staff: 'headcount',
  sales: 'revenue',
  turnover: 'revenue',
  income: 'net_income',
  profit: 'net_profit',
  margin: 'gross_margin',
  cogs: 'cost_of_goods_sold',
  opex: 'total_operating_expenses',
  irr: 'gross_irr',
  valuation: 'post_money_valuation',
  runway_months: 'runway',
  growth: 'revenue_growth',
};

/**
 * The valid name to suggest for an unknown category: one that means the same (burn → net_burn,
 * mrr → arr) when it is valid here, otherwise the nearest by spelling.
 */
export function suggestCategory(input: string, candidates: readonly string[]): string | undefined {
  const meaning = CATEGORY_SYNONYMS[normaliseCategoryName(input)];
  if (meaning && candidates.includes(meaning)) return meaning;
  return nearestName(normaliseCategoryName(input), candidates)?.name;
}
