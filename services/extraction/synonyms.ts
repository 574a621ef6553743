/**
 * The synonym table: row labels, normalised (lower case, `&` as `and`, punctuation and spaces folded),
 * to the standard category they report. Maintained by hand; a label not here is never guessed.
 */
const TABLE: Record<string, readonly string[]> = {
  revenue: [
    'revenue',
    'revenues',
    'total revenue',
    'total revenues',
    'turnover',
    'net sales',
    'sales',
    'total sales',
    'net revenue',
    'income from sales',
  ],
  cost_of_goods_sold: [
    'cost of sales',
    'cost of goods sold',
    'cogs',
    'cost of revenue',
    'total cost of sales',
    'direct costs',
  ],
  gross_profit: ['gross profit', 'gross margin value', 'total gross profit'],
  gross_margin: ['gross margin', 'gross margin percent', 'gross margin pct'],
  total_operating_expenses: [
    'operating expenses',
    'total operating expenses',
    'opex',
    'total opex',
    'overheads',
    'total overheads',
  ],
  ebitda: ['ebitda', 'adjusted ebitda'],
  net_operating_profit: ['operating profit', 'ebit', 'operating income'],
  net_income: ['net income', 'net loss', 'net income loss'],
  net_profit: ['net profit', 'profit after tax', 'net profit loss', 'profit loss for the period'],
  net_burn: ['net burn', 'burn', 'monthly burn', 'cash burn'],
  cash_in_bank: [
    'cash',
    'cash and cash equivalents',
    'cash at bank',
    'cash in bank',
    'closing cash',
    'cash balance',
    'cash and equivalents',
  ],
  accounts_receivable: ['accounts receivable', 'trade debtors', 'debtors', 'trade receivables'],
  accounts_payable: ['accounts payable', 'trade creditors', 'creditors', 'trade payables'],
  current_assets: ['current assets', 'total current assets'],
  current_liabilities: ['current liabilities', 'total current liabilities'],
  assets: ['total assets'],
  liabilities: ['total liabilities'],
  equity: ['equity', 'total equity', 'shareholders equity', 'total shareholders equity'],
  net_assets: ['net assets', 'total net assets'],
  headcount: ['headcount', 'ftes', 'fte', 'employees', 'number of employees', 'staff', 'head count'],
  arr: ['arr', 'annual recurring revenue', 'closing arr', 'ending arr'],
  new_logo_arr: ['new logo arr', 'new arr', 'new business arr'],
  expansion_arr: ['expansion arr', 'upsell arr'],
  churned_arr: ['churned arr', 'churn arr', 'lost arr'],
  runway: ['runway', 'runway months', 'cash runway'],
  cash_flow_from_operating_activities: [
    'cash flow from operating activities',
    'operating cash flow',
    'net cash from operating activities',
  ],
  total_change_in_cash: ['net change in cash', 'total change in cash', 'net increase decrease in cash'],
};

/** Categories whose figures are costs: stored as positive amounts whatever sign the sheet shows. */
export const COST_CATEGORIES: ReadonlySet<string> = new Set([
  'cost_of_goods_sold',
  'total_operating_expenses',
  'net_burn',
]);

/** Categories that are counts, months or ratios: units notes (`$000s`) do not scale them. */
export const UNSCALED_CATEGORIES: ReadonlySet<string> = new Set(['headcount', 'runway', 'gross_margin']);

/** A label folded for lookup: lower case, `&` as `and`, no punctuation, single spaces. */
export function normalizeLabel(label: string): string {
  return label
    .toLowerCase()
    .replace(/&/g, ' and ')
    .replace(/\([^)]*\)/g, ' ')
    .replace(/[^a-z0-9%]+/g, ' ')
    .trim();
}

const BY_LABEL = new Map<string, string>();
for (const [category, labels] of Object.entries(TABLE))
  for (const label of labels) BY_LABEL.set(normalizeLabel(label), category);

/** The standard category a label names in the synonym table, or undefined. */
export function synonymOf(label: string): string | undefined {
  return BY_LABEL.get(normalizeLabel(label));
}

/** Labels of rows that only add up others without naming what (`Total`, `Subtotal`). */
export function isBareTotal(label: string): boolean {
  return /^(sub ?)?totals?$/.test(normalizeLabel(label));
}
