/**
 * Metric rows from the operating model: monthly actuals in the categories that fit each company's
 * model, quarterly and yearly revenue totals for a few, budgets with plan figures, custom metrics,
 * and the edits a real data set carries (archived series, deleted duplicates, comments, history).
 */
import type { MonthBook } from './demo-model.ts';
import type { Model } from './demo-world.ts';
import {
  addMetric,
  type CategoryRef,
  type CompanyCtx,
  type FirmCtx,
  type Row,
  standardCategory,
} from './rows.ts';
import {
  addDays,
  addMinutes,
  DEMO_TODAY,
  earlier,
  fmtCents,
  fmtFixed,
  fmtFraction,
  fmtInt,
  instant,
  isQuarterEnd,
  type Month,
  monthsBetween,
  parseCents,
} from './values.ts';

const REVENUE_PNL = [
  'revenue',
  'cost_of_goods_sold',
  'gross_profit',
  'gross_margin',
  'total_operating_expenses',
  'ebitda',
];

/** The monthly categories each operating model reports (15 to 18 of them). */
export const MONTHLY_CATEGORIES: Record<Model, string[]> = {
  saas: [
    ...REVENUE_PNL,
    'net_burn',
    'revenue_growth',
    'cash_in_bank',
    'runway',
    'headcount',
    'arr',
    'new_logo_arr',
    'expansion_arr',
    'contraction_arr',
    'churned_arr',
    'reactivation_arr',
    'net_new_arr',
  ],
  marketplace: [
    ...REVENUE_PNL,
    'operating_margin',
    'net_burn',
    'revenue_growth',
    'cash_in_bank',
    'runway',
    'headcount',
    'cash_receipts',
    'cash_payments',
    'accounts_receivable',
    'accounts_payable',
    'revenue_per_fte',
  ],
  fintech: [
    ...REVENUE_PNL,
    'net_income',
    'net_burn',
    'cash_in_bank',
    'runway',
    'headcount',
    'current_assets',
    'current_liabilities',
    'assets',
    'liabilities',
    'equity',
    'burn_per_fte',
  ],
  climate: [
    ...REVENUE_PNL,
    'net_burn',
    'cash_in_bank',
    'runway',
    'headcount',
    'cash_flow_from_operating_activities',
    'cash_flow_from_investing_activities',
    'cash_flow_from_financing_activities',
    'total_change_in_cash',
    'property_plants_and_equipment',
    'non_current_assets',
    'long_term_liabilities',
  ],
  health: [
    ...REVENUE_PNL,
    'net_profit',
    'net_burn',
    'cash_in_bank',
    'runway',
    'headcount',
    'cash_flow_from_operating_activities',
    'total_change_in_cash',
    'revenue_per_fte',
    'burn_per_fte',
  ],
  biotech: [
    'total_operating_expenses',
    'ebitda',
    'net_income',
    'net_other_income',
    'net_operating_profit',
    'net_burn',
    'cash_in_bank',
    'short_term_investments',
    'runway',
    'headcount',
    'cash_flow_from_operating_activities',
    'cash_flow_from_investing_activities',
    'cash_flow_from_financing_activities',
    'total_change_in_cash',
    'property_plants_and_equipment',
    'burn_per_fte',
  ],
  consumer: [
    ...REVENUE_PNL,
    'net_operating_profit',
    'net_burn',
    'revenue_growth',
    'cash_in_bank',
    'runway',
    'headcount',
    'accounts_payable',
    'current_assets',
    'current_liabilities',
    'cash_receipts',
    'cash_payments',
  ],
};

/** The stored value of a category for one month, or null when it is not defined that month. */
function monthValue(name: string, b: MonthBook, prev: MonthBook | undefined): string | null {
  const perHead = (cents: number) => fmtCents(Math.round(cents / Math.max(1, b.headcount)));
  const currentAssets = b.cash + b.receivables + b.shortTermInvestments + Math.round(b.opex * 0.5);
  const currentLiabilities = b.payables + Math.round(b.revenue * 0.3) + Math.round(b.opex * 0.4);
  const otherNonCurrent = Math.round(b.opex * 0.2);
  switch (name) {
    case 'revenue':
      return fmtCents(b.revenue);
    case 'cost_of_goods_sold':
      return fmtCents(b.cogs);
    case 'gross_profit':
      return fmtCents(b.grossProfit);
    case 'gross_margin':
      return b.revenue > 0 ? fmtFraction(b.grossProfit / b.revenue) : null;
    case 'operating_margin':
      return b.revenue > 0 ? fmtFraction(b.ebitda / b.revenue) : null;
    case 'total_operating_expenses':
      return fmtCents(b.opex);
    case 'ebitda':
      return fmtCents(b.ebitda);
    case 'net_operating_profit':
      return fmtCents(b.ebitda - b.depreciation);
    case 'net_income':
    case 'net_profit':
      return fmtCents(b.netIncome);
    case 'net_other_income':
      return fmtCents(b.interestIncome);
    case 'net_burn':
      return fmtCents(b.netBurn);
    case 'revenue_growth':
      return prev && prev.revenue > 0 ? fmtFraction(b.revenue / prev.revenue - 1) : null;
    case 'cash_in_bank':
      return fmtCents(b.cash);
    case 'short_term_investments':
      return fmtCents(b.shortTermInvestments);
    case 'runway':
      return b.runway === null ? null : fmtFixed(Math.min(b.runway, 240), 1);
    case 'headcount':
      return fmtInt(b.headcount);
    case 'arr':
      return fmtCents(b.arr);
    case 'new_logo_arr':
      return fmtCents(b.newLogo);
    case 'expansion_arr':
      return fmtCents(b.expansion);
    case 'contraction_arr':
      return fmtCents(b.contraction);
    case 'churned_arr':
      return fmtCents(b.churned);
    case 'reactivation_arr':
      return fmtCents(b.reactivation);
    case 'net_new_arr':
      return fmtCents(b.netNewArr);
    case 'cash_receipts':
      return fmtCents(b.revenue + b.workingCapital + b.interestIncome);
    case 'cash_payments':
      return fmtCents(b.cogs + b.opex + b.capex);
    case 'accounts_receivable':
      return fmtCents(b.receivables);
    case 'accounts_payable':
      return fmtCents(b.payables);
    case 'current_assets':
      return fmtCents(currentAssets);
    case 'current_liabilities':
      return fmtCents(currentLiabilities);
    case 'assets':
      return fmtCents(currentAssets + b.ppe + otherNonCurrent);
    case 'liabilities':
      return fmtCents(currentLiabilities + b.longTermDebt);
    case 'equity':
      return fmtCents(currentAssets + b.ppe + otherNonCurrent - currentLiabilities - b.longTermDebt);
    case 'property_plants_and_equipment':
      return fmtCents(b.ppe);
    case 'non_current_assets':
      return fmtCents(b.ppe + otherNonCurrent);
    case 'long_term_liabilities':
      return fmtCents(b.longTermDebt);
    case 'cash_flow_from_operating_activities':
      return fmtCents(b.cfo);
    case 'cash_flow_from_investing_activities':
      return fmtCents(b.cfi);
    case 'cash_flow_from_financing_activities':
      return fmtCents(b.cff);
    case 'total_change_in_cash':
      return fmtCents(b.cfo + b.cfi + b.cff);
    case 'revenue_per_fte':
      return perHead(b.revenue);
    case 'burn_per_fte':
      return perHead(b.netBurn);
    default:
      throw new Error(`no model value for ${name}`);
  }
}

const LATEST_REPORT = addDays(DEMO_TODAY, -1);

/** When a month's figures arrived: days after month end, sooner through an integration. */
function reportedAt(company: CompanyCtx, month: Month, rng: CompanyCtx['rng']): string {
  const integration = company.spec.source.startsWith('integration:');
  let date = addDays(month.end, integration ? rng.int(2, 4) : rng.int(9, 24));
  // Months before the first investment were back-filled when the company joined the portfolio.
  if (month.end < company.firstDate) date = addDays(company.firstDate, 30);
  date = earlier(date, LATEST_REPORT);
  return instant(date, rng.int(7, 18), rng.int(0, 59), rng.int(0, 59));
}

interface Datum {
  name: string;
  row: Row;
}

/** Monthly actuals, period totals, and the edits of a real data set. */
export function addCompanyMetrics(firm: FirmCtx, company: CompanyCtx): void {
  const rng = company.rng.fork('metrics');
  const books = company.model.books;
  const only = firm.spec.categories;
  const names = MONTHLY_CATEGORIES[company.spec.model].filter((n) => !only || only.includes(n));
  const categories = names.map((n) => standardCategory(n));
  const data: Datum[] = [];

  books.forEach((book, i) => {
    const createdAt = reportedAt(company, book.month, rng);
    const source = book.month.end < company.firstDate ? 'upload' : company.spec.source;
    for (const category of categories) {
      const value = monthValue(category.name, book, books[i - 1]);
      if (value === null) continue;
      data.push({
        name: category.name,
        row: addMetric(firm, company, category, book.date, value, { createdAt, source }),
      });
    }
  });

  if (company.spec.periodTotals) addPeriodTotals(firm, company);
  addEdits(firm, data, rng.fork('edits'));
}

/** Quarterly and yearly revenue totals, dated at the end of each fiscal quarter and year. */
function addPeriodTotals(firm: FirmCtx, company: CompanyCtx): void {
  const books = company.model.books;
  const revenue = standardCategory('revenue');
  const fyeMonth = Number(company.spec.fiscalYearEnd.slice(0, 2));
  const source = company.spec.source;
  books.forEach((book, i) => {
    const fromYearEnd = (book.month.month - fyeMonth + 12) % 12;
    if (fromYearEnd % 3 !== 0) return;
    const options = (cadence: string) => ({
      cadence,
      createdAt: instant(addDays(book.date, 25), 10),
      source,
    });
    if (i >= 2) {
      const total = books.slice(i - 2, i + 1).reduce((a, b) => a + b.revenue, 0);
      addMetric(firm, company, revenue, book.date, fmtCents(total), options('quarter'));
    }
    if (fromYearEnd === 0 && i >= 11) {
      const total = books.slice(i - 11, i + 1).reduce((a, b) => a + b.revenue, 0);
      addMetric(firm, company, revenue, book.date, fmtCents(total), options('year'));
    }
  });
}

const COMMENTS = [
  'Includes a one-off implementation fee from a new enterprise customer.',
  'Management accounts, not yet reviewed by the auditors.',
  'Restated after the month-end close review.',
  'Lower than plan: two deals slipped into next month.',
  'Includes the annual insurance prepayment.',
  'FX impact on the intercompany balance is excluded.',
  'Confirmed with the CFO on the monthly call.',
  'Payroll for the new sales team starts this month.',
];

const CORE = new Set(['revenue', 'net_burn', 'cash_in_bank', 'headcount', 'arr']);
const ARR_PARTS = new Set([
  'arr',
  'new_logo_arr',
  'expansion_arr',
  'contraction_arr',
  'churned_arr',
  'reactivation_arr',
  'net_new_arr',
]);

function addEdits(firm: FirmCtx, data: Datum[], rng: CompanyCtx['rng']): void {
  if (data.length === 0) return;
  const users = [...firm.users.values()];
  const byName = (name: string) => data.filter((d) => d.name === name);

  // Archived: an early stretch of one series, superseded when the definitions changed.
  const archivable = [...new Set(data.map((d) => d.name))].filter((n) => !CORE.has(n) && !ARR_PARTS.has(n));
  if (archivable.length > 0 && rng.chance(0.4)) {
    const series = byName(rng.pick(archivable));
    for (const d of series.slice(0, rng.int(6, 12))) d.row.archived = true;
  }

  // Deleted: duplicates entered by mistake, with a typo, removed a few days later.
  const deletions = rng.chance(0.5) ? rng.int(1, 3) : 0;
  for (let i = 0; i < deletions; i++) {
    const series = byName(rng.pick(['revenue', 'net_burn', 'cash_in_bank']));
    if (series.length === 0) continue;
    const original = rng.pick(series).row;
    const createdAt = addMinutes(original.created_at as string, rng.int(60, 3 * 1440));
    const deletedAt = addMinutes(createdAt, rng.int(1440, 6 * 1440));
    const cents = parseCents(original.value as string);
    firm.rows.add('metric_data', {
      ...original,
      id: firm.ids.next('md'),
      value: fmtCents(rng.chance(0.5) ? cents * 10 : Math.round(cents / 10)),
      detailed_source: 'upload',
      archived: false,
      created_at: createdAt,
      updated_at: deletedAt,
      deleted_at: deletedAt,
    });
  }

  // History: restated revenue, with a comment when the editor explained it.
  const revenue = byName('revenue');
  const restatements = revenue.length > 12 && rng.chance(0.5) ? rng.int(1, 2) : 0;
  const restated = new Set<Row>();
  for (let i = 0; i < restatements; i++) {
    const datum = rng.pick(revenue.slice(0, -1)).row;
    if (restated.has(datum)) continue;
    restated.add(datum);
    const editor = rng.pick(users.filter((u) => u.role !== 'viewer'));
    const changedAt = addMinutes(datum.created_at as string, rng.int(10, 40) * 1440);
    const cents = parseCents(datum.value as string);
    const withComment = rng.chance(0.6);
    firm.rows.add('metric_history', {
      id: firm.ids.next('mh'),
      datum_id: datum.id as string,
      old_value: fmtCents(Math.round(cents * rng.between(0.94, 0.99))),
      new_value: datum.value as string,
      old_currency: datum.currency as string | null,
      new_currency: datum.currency as string | null,
      comments_added: withComment ? 1 : 0,
      changed_by: editor.id,
      changed_at: changedAt,
    });
    datum.updated_at = changedAt;
    if (withComment) addComment(firm, datum, COMMENTS[2]!, editor.name, changedAt);
  }

  // Comments on a few data points.
  const commented = rng.chance(0.6) ? rng.int(1, 3) : 0;
  for (let i = 0; i < commented; i++) {
    const datum = rng.pick(data).row;
    const count = rng.int(1, 2);
    let at = addMinutes(datum.created_at as string, rng.int(60, 5 * 1440));
    for (let c = 0; c < count; c++) {
      const author = rng.pick(users);
      addComment(firm, datum, rng.pick(COMMENTS), author.name, at);
      at = addMinutes(at, rng.int(30, 2 * 1440));
    }
  }
}

function addComment(firm: FirmCtx, datum: Row, content: string, author: string, at: string): void {
  const existing = firm.rows.get('metric_comments').filter((c) => c.datum_id === datum.id);
  firm.rows.add('metric_comments', {
    id: firm.ids.next('mc'),
    datum_id: datum.id as string,
    content,
    updated_by: author,
    updated_at: at,
    seq: existing.length + 1,
  });
  if ((datum.updated_at as string) < at) datum.updated_at = at;
}

// ---- budgets -------------------------------------------------------------------------------

interface BudgetPlan {
  name: string;
  fiscalYear: number;
  color: string;
  /** Plan ÷ actual for revenue at the start of the year, and its drift per month. */
  optimism: [number, number];
  /** From this month on (1-based within the year) a reforecast tracks the actuals closely. */
  reforecastFrom?: number;
  description: string;
}

const BUDGETS: BudgetPlan[] = [
  {
    name: 'FY2025 Plan',
    fiscalYear: 2025,
    color: '#2563eb',
    optimism: [1.04, 0.008],
    description: 'Board-approved operating plan for fiscal 2025.',
  },
  {
    name: 'FY2026 Plan',
    fiscalYear: 2026,
    color: '#16a34a',
    optimism: [1.03, 0.006],
    description: 'Operating plan for fiscal 2026, approved at the December board meeting.',
  },
  {
    name: 'FY2026 Reforecast',
    fiscalYear: 2026,
    color: '#f59e0b',
    optimism: [1.01, 0.002],
    reforecastFrom: 7,
    description: 'Mid-year reforecast after the H1 close.',
  },
];

/** The 12 month ends of a fiscal year that ends in `fye` ('MM-DD') of `year`. */
function fiscalMonths(fye: string, year: number): { key: string; end: string }[] {
  const endMonth = Number(fye.slice(0, 2));
  const out: { key: string; end: string }[] = [];
  for (let i = 11; i >= 0; i--) {
    const total = year * 12 + (endMonth - 1) - i;
    const y = Math.floor(total / 12);
    const m = (total % 12) + 1;
    const end = new Date(Date.UTC(y, m, 0)).toISOString().slice(0, 10);
    out.push({ key: end.slice(0, 7), end });
  }
  return out;
}

/** Budgets for about half of the companies, each with monthly revenue, net burn and headcount plans. */
export function addBudgets(firm: FirmCtx, company: CompanyCtx): void {
  const rng = company.rng.fork('budgets');
  if (company.spec.model === 'biotech' || company.spec.status !== 'active') return;
  if (!rng.chance(firm.spec.budgetShare)) return;
  const books = company.model.books;
  const byKey = new Map(books.map((b) => [b.month.key, b]));
  const last = books[books.length - 1]!;
  const plans = BUDGETS.filter((p) => !p.reforecastFrom || rng.chance(0.5));
  const categories = {
    revenue: standardCategory('revenue'),
    net_burn: standardCategory('net_burn'),
    headcount: standardCategory('headcount'),
  };

  for (const plan of plans) {
    const months = fiscalMonths(company.spec.fiscalYearEnd, plan.fiscalYear);
    if (!byKey.has(months[0]!.key)) continue;
    const date = `${months[0]!.key}-01`;
    const createdAt = instant(addDays(date, plan.reforecastFrom ? 6 * 30 : -20), 14);
    const budgetId = firm.ids.next('bud');
    firm.rows.add('budgets', {
      id: budgetId,
      firm_id: firm.id,
      company_id: company.id,
      name: plan.name,
      date,
      color: plan.color,
      description: plan.description,
      created_at: createdAt,
    });
    const burnBias = rng.between(0.78, 0.95);
    months.forEach((m, i) => {
      const actual = byKey.get(m.key);
      // Months after the data: extrapolate the last actuals.
      const growthGuess = actual ? 1 : 1.02 ** monthsBetween(last.month.key, m.key);
      const base = actual ?? last;
      const tracking = plan.reforecastFrom !== undefined && i + 1 >= plan.reforecastFrom;
      const revenueFactor = tracking
        ? rng.between(0.97, 1.03)
        : (plan.optimism[0] + plan.optimism[1] * i) * rng.between(0.98, 1.06);
      const burnFactor = tracking ? rng.between(0.95, 1.05) : burnBias * rng.between(0.95, 1.05);
      const revenue = distinct(Math.round(base.revenue * growthGuess * revenueFactor), actual?.revenue);
      const netBurn = distinct(Math.round(base.netBurn * burnFactor), actual?.netBurn);
      const headcount = distinct(
        Math.round(base.headcount * (tracking ? 1 : rng.between(1.04, 1.15))) +
          (tracking ? rng.int(-1, 2) : 1),
        actual?.headcount,
        1,
      );
      const options = { createdAt, source: 'upload', budgetId };
      addMetric(firm, company, categories.revenue, m.end, fmtCents(revenue), options);
      addMetric(firm, company, categories.net_burn, m.end, fmtCents(netBurn), options);
      addMetric(firm, company, categories.headcount, m.end, fmtInt(headcount), options);
    });
  }
}

/** A plan figure never equals the actual one. */
function distinct(plan: number, actual: number | undefined, step = 100): number {
  return actual !== undefined && plan === actual ? plan + step : plan;
}

// ---- custom metrics ------------------------------------------------------------------------

const SENTIMENT = {
  strong: [
    'Positive: growth ahead of plan and the board approved the hiring plan.',
    'Very positive: strong quarter, pipeline for next quarter already covered.',
    'Positive: efficient growth, burn multiple improving quarter on quarter.',
  ],
  steady: [
    'Constructive: growth in line with plan; focus on sales efficiency.',
    'Neutral: solid execution, watching churn in the SMB segment.',
    'Constructive: product milestones met, commercial traction still early.',
  ],
  weak: [
    'Cautious: revenue below plan, board asked for a cost plan within 30 days.',
    'Concerned: runway under 12 months; fundraising process starting.',
    'Cautious: two senior departures this quarter; hiring a new VP Sales.',
  ],
};

/** Custom metrics of the firm (NPS, users, customers, GMV, board sentiment, plan status). */
export function addCustomMetrics(firm: FirmCtx, company: CompanyCtx): void {
  if (firm.customCategories.size === 0) return;
  const rng = company.rng.fork('custom');
  const books = company.model.books;
  const model = company.spec.model;
  const custom = (name: string): CategoryRef => firm.customCategories.get(name)!;
  const at = (date: string) => instant(addDays(date, rng.int(12, 20)), 12, rng.int(0, 59));
  const clampDate = (iso: string) => earlier(iso, instant(LATEST_REPORT, 12));
  const source = 'information-request';

  if (model !== 'biotech' && model !== 'climate') {
    let nps = rng.int(18, 45);
    for (const b of books.filter((x) => isQuarterEnd(x.month.month))) {
      nps = Math.max(-20, Math.min(80, nps + rng.int(-6, 7)));
      addMetric(firm, company, custom('NPS'), b.date, String(nps), {
        createdAt: clampDate(at(b.date)),
        source,
      });
    }
  }
  if (model === 'consumer' || model === 'marketplace' || model === 'health' || model === 'fintech') {
    for (const b of books) {
      addMetric(firm, company, custom('Active Users'), b.date, String(b.activeUsers), {
        createdAt: clampDate(at(b.date)),
        source,
      });
    }
  }
  if (model === 'saas') {
    for (const b of books) {
      addMetric(firm, company, custom('Customer Count'), b.date, String(b.customers), {
        createdAt: clampDate(at(b.date)),
        source,
      });
    }
  }
  if (model === 'marketplace') {
    const takeRate = rng.between(0.08, 0.15);
    for (const b of books) {
      addMetric(
        firm,
        company,
        custom('Gross Merchandise Value'),
        b.date,
        fmtCents(Math.round(b.revenue / takeRate)),
        {
          cadence: 'month',
          createdAt: clampDate(at(b.date)),
          source,
        },
      );
    }
  }

  // Qualitative marks for the last eight quarters, from growth and runway.
  const quarters = books.filter((b) => isQuarterEnd(b.month.month)).slice(-8);
  const hasBoard = (company.spec.boardSeat ?? '').startsWith('Board');
  for (const b of quarters) {
    const i = books.indexOf(b);
    const before = books[i - 3];
    const growth = before && before.revenue > 0 ? b.revenue / before.revenue - 1 : 0;
    const runway = b.runway ?? 99;
    const mood = growth > 0.08 && runway > 12 ? 'strong' : growth < 0 || runway < 9 ? 'weak' : 'steady';
    const createdAt = clampDate(at(b.date));
    if (hasBoard) {
      addMetric(firm, company, custom('Board Sentiment'), b.date, rng.pick(SENTIMENT[mood]), {
        createdAt,
        source,
      });
    }
    const status =
      mood === 'strong' ? 'On track' : mood === 'steady' ? rng.pick(['On track', 'At risk']) : 'Off track';
    addMetric(firm, company, custom('Plan Status'), b.date, status, { createdAt, source });
  }

  // A discontinued score, kept for history.
  if (rng.chance(0.3)) {
    for (const b of books.filter((x) => x.month.year === 2022 && isQuarterEnd(x.month.month))) {
      addMetric(firm, company, custom('Legacy Health Score'), b.date, String(rng.int(4, 9)), {
        createdAt: at(b.date),
        source: 'upload',
        archived: true,
      });
    }
  }
}
