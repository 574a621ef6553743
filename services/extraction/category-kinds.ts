import { isMonetary, STANDARD_CATEGORIES } from '../../core/categories.ts';

// What the reader needs to know of the standard categories, derived from core/categories.ts where it can be.

const names = (keep: (c: (typeof STANDARD_CATEGORIES)[number]) => boolean): ReadonlySet<string> =>
  new Set(STANDARD_CATEGORIES.filter(keep).map((c) => c.name));

/** Amounts of money: the only figures a units note scales, and the only ones with a currency. */
export const MONETARY = names((c) => isMonetary(c.kind));
/** Ratios, stored as fractions (0.45 for 45 %). */
export const RATIOS = names((c) => c.kind === 'percentage');
/** Flows over a period (revenue, burn), as against balances at its end. */
export const FLOWS = names((c) => !c.pointInTime);

/** Categories whose figures are costs: stored as positive amounts whatever sign the sheet shows. */
export const COST_CATEGORIES: ReadonlySet<string> = new Set([
  'cost_of_goods_sold',
  'total_operating_expenses',
  'net_burn',
  'cash_payments',
  'churned_arr',
  'contraction_arr',
  // Amounts owed, shown in brackets on many balance sheets.
  'accounts_payable',
  'current_liabilities',
  'long_term_liabilities',
  'liabilities',
]);
