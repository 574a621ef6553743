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
    'total turnover',
    'net turnover',
    'net sales',
    'total net sales',
    'sales',
    'total sales',
    'net revenue',
    'net revenues',
    'total net revenue',
    'income from sales',
    'total income',
    'total trading income',
    'sales revenue',
    'total sales revenue',
    'operating revenue',
    'total operating revenue',
    'revenue from operations',
    'revenue total',
  ],
  cost_of_goods_sold: [
    'cost of sales',
    'total cost of sales',
    'cost of goods sold',
    'total cost of goods sold',
    'cogs',
    'total cogs',
    'cost of revenue',
    'cost of revenues',
    'total cost of revenue',
    'total cost of revenues',
    'direct costs',
    'total direct costs',
    'cost of goods',
  ],
  gross_profit: [
    'gross profit',
    'gross margin value',
    'total gross profit',

    'gross profit loss',
    'gp',
  ],
  gross_margin: [
    'gross margin',
    'gross margin percent',
    'gross margin pct',
    'gross margin %',
    '% gross margin',
    'gross profit margin',
    'gross profit %',
    'gp %',
    'gp margin',
    'gross margin ratio',
  ],
  total_operating_expenses: [
    'operating expenses',
    'total operating expenses',
    'total operating expense',
    'opex',
    'total opex',
    'overheads',
    'total overheads',
    'operating costs',
    'total operating costs',
    'total expenses',
    'total indirect expenses',
    'total overhead expenses',
  ],
  ebitda: [
    'ebitda',
    'adjusted ebitda',
    'underlying ebitda',
    'reported ebitda',
    'operating profit before depreciation',
  ],
  net_operating_profit: [
    'operating profit',
    'operating loss',
    'operating profit loss',
    'operating income',
    'operating income loss',
    'net operating income',
    'net operating loss',
    'ebit',
    'operating result',
    'profit from operations',
  ],
  operating_margin: [
    'operating margin',
    'operating margin %',
    'ebit margin',
    'ebit margin %',
    'operating profit margin',
  ],
  net_income: ['net income', 'net loss', 'net income loss', 'net loss income'],
  net_profit: [
    'net profit',
    'net profit loss',
    'profit after tax',
    'profit after taxation',
    'profit loss after tax',
    'loss after tax',
    'pat',
    'profit loss for the period',
    'profit for the period',
    'loss for the period',
    'profit for the year',
    'loss for the year',
    'profit for the financial year',
    'net result',
    'result for the period',
    'result after tax',
  ],
  net_other_income: [
    'net other income',
    'other income net',
    'other income expense net',
    'net other income expense',
    'total other income',
    'total other income expense',
  ],
  net_burn: [
    'net burn',
    'burn',
    'monthly burn',
    'cash burn',
    'net cash burn',
    'burn rate',
    'net burn rate',
    'monthly net burn',
  ],
  cash_in_bank: [
    'cash',
    'cash and cash equivalents',
    'cash at bank',
    'cash at banks',
    'cash at bank and in hand',
    'cash in bank',
    'closing cash',
    'closing cash balance',
    'cash balance',
    'cash and equivalents',
    'ending cash',
    'ending cash balance',
    'cash at end of period',
    'cash at end of month',
    'cash at the end of the period',
    'cash at end of year',
    'cash and cash equivalents at end of period',
    'cash and cash equivalents at end of year',
    'total bank',
    'total cash',
    'bank balance',
    'cash on hand',
    'cash and bank',
  ],
  accounts_receivable: [
    'accounts receivable',
    'total accounts receivable',
    'account receivable',
    'trade debtors',
    'debtors',
    'trade receivables',
    'trade and other receivables',
    'receivables',
  ],
  accounts_payable: [
    'accounts payable',
    'total accounts payable',
    'trade creditors',
    'creditors',
    'trade payables',
    'trade and other payables',
    'payables',
  ],
  current_assets: ['current assets', 'total current assets'],
  current_liabilities: [
    'current liabilities',
    'total current liabilities',
    'creditors amounts falling due within one year',
    'creditors due within one year',
    'short term liabilities',
    'total short term liabilities',
  ],
  long_term_liabilities: [
    'long term liabilities',
    'total long term liabilities',
    'non current liabilities',
    'total non current liabilities',
    'creditors amounts falling due after more than one year',
    'creditors due after more than one year',
  ],
  non_current_assets: [
    'non current assets',
    'total non current assets',
    'fixed assets',
    'total fixed assets',
  ],
  property_plants_and_equipment: [
    'property plant and equipment',
    'property and equipment',
    'tangible assets',
    'tangible fixed assets',
    'ppe',
    'ppande',
  ],
  assets: ['total assets', 'total asset'],
  liabilities: ['total liabilities', 'total liability'],
  equity: [
    'equity',
    'total equity',
    'shareholders equity',
    'total shareholders equity',
    'shareholder equity',
    'total shareholder equity',
    'stockholders equity',
    'total stockholders equity',
    'shareholders funds',
    'total shareholders funds',
    'group equity',
    'total capital and reserves',
  ],
  net_assets: ['net assets', 'total net assets'],
  headcount: [
    'headcount',
    'total headcount',
    'ftes',
    'fte',
    'employees',
    'total employees',
    'number of employees',
    'head count',
    'number of ftes',
    'team size',
  ],
  arr: ['arr', 'annual recurring revenue', 'closing arr', 'ending arr', 'total arr', 'arr end of period'],
  new_logo_arr: ['new logo arr', 'new arr', 'new business arr', 'new customer arr', 'new logos arr'],
  expansion_arr: ['expansion arr', 'upsell arr', 'expansion', 'upsell'],
  churned_arr: ['churned arr', 'churn arr', 'lost arr', 'churn', 'churned'],
  contraction_arr: ['contraction arr', 'contraction', 'downgrade arr', 'downsell arr'],
  reactivation_arr: ['reactivation arr', 'reactivated arr', 'reactivation'],
  net_new_arr: ['net new arr', 'net arr added', 'net new annual recurring revenue'],
  runway: ['runway', 'runway months', 'cash runway', 'months of runway', 'cash runway months'],
  burn_per_fte: ['burn per fte', 'burn per employee', 'burn per head', 'net burn per fte'],
  revenue_per_fte: [
    'revenue per fte',
    'revenue per employee',
    'revenue per head',
    'turnover per head',
    'turnover per employee',
    'sales per employee',
  ],
  revenue_growth: [
    'revenue growth',
    'revenue growth %',
    'yoy revenue growth',
    'revenue growth yoy',
    'yoy growth',
  ],
  cash_receipts: [
    'cash receipts',
    'total cash receipts',
    'total receipts',
    'receipts',
    'cash receipts from customers',
    'receipts from customers',
  ],
  cash_payments: [
    'cash payments',
    'total cash payments',
    'total payments',
    'payments',
    'payments to suppliers and employees',
  ],
  cash_flow_from_operating_activities: [
    'cash flow from operating activities',
    'cash flows from operating activities',
    'operating cash flow',
    'net cash from operating activities',
    'net cash flow from operating activities',
    'net cash provided by operating activities',
    'net cash used in operating activities',
    'net cash provided by used in operating activities',
    'net cash generated from operating activities',
    'cash generated from operations',
    'cash flow from operations',
    'cash from operations',
    'cash from operating activities',
  ],
  cash_flow_from_investing_activities: [
    'cash flow from investing activities',
    'cash flows from investing activities',
    'net cash from investing activities',
    'net cash flow from investing activities',
    'net cash used in investing activities',
    'net cash provided by investing activities',
    'net cash provided by used in investing activities',
    'cash from investing activities',
  ],
  cash_flow_from_financing_activities: [
    'cash flow from financing activities',
    'cash flows from financing activities',
    'net cash from financing activities',
    'net cash flow from financing activities',
    'net cash provided by financing activities',
    'net cash used in financing activities',
    'net cash provided by used in financing activities',
    'cash from financing activities',
  ],
  short_term_investments: ['short term investments'],
  total_change_in_cash: [
    'net change in cash',
    'total change in cash',
    'change in cash',
    'net increase decrease in cash',
    'net increase in cash',
    'net decrease in cash',
    'net increase decrease in cash and cash equivalents',
    'net change in cash and cash equivalents',
    'net cash increase for period',
    'net cash movement',
    'increase in cash and cash equivalents',
    'increase decrease in cash and cash equivalents',
    'decrease in cash and cash equivalents',
    'net movement in cash',
    'movement in cash',
  ],
};

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

/** Words around a label that name its units or its place, not what it reports. */
const UNIT_WORDS = /\s+(in\s+)?(teur|keur|eur|usd|gbp|chf|k|m|mm|mn|000|000s|thousands|millions|#|no)$/;

/**
 * The standard category a label names in the synonym table, or undefined: as written, then without
 * a leading number (`3. Revenue`), `Total for` (`Total for Cost of Goods Sold`) and units after it (`ARR EUR k`).
 */
export function synonymOf(label: string, options: { exact?: boolean } = {}): string | undefined {
  const key = normalizeLabel(label);
  const direct = BY_LABEL.get(key);
  if (direct || options.exact) return direct;
  let bare = key.replace(/^(\d+|[a-z]|[ivx]+)\s+(?=[a-z])/, '');
  for (let i = 0; i < 3 && UNIT_WORDS.test(bare); i++) bare = bare.replace(UNIT_WORDS, '');
  bare = bare.replace(/^total for\s+/, 'total ').replace(/^less\s+/, '');
  return (
    BY_LABEL.get(bare) ??
    BY_LABEL.get(bare.replace(/^total\s+/, '')) ??
    BY_LABEL.get(bare.replace(/^net\s+/, ''))
  );
}

/** Labels of rows that only add up others without naming what (`Total`, `Subtotal`). */
export function isBareTotal(label: string): boolean {
  return /^(sub ?)?totals?$/.test(normalizeLabel(label));
}
