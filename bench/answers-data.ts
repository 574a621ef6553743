// Figures of `npm run bench:answers` recomputed from the database rows, apart from the service's analytics:
// each company's latest values, ARR growth, runway and staleness, money in the firm's currency. The
// definitions are those the tools state (get_company_financial_summary, screen_companies), written again here.
import type { Knex } from 'knex';
import { standardCategoryId } from '../core/categories.ts';
import * as D from '../core/decimal.ts';

/** The rows of one table that belong to the bench's firm. */
export type Table = (table: string) => Knex.QueryBuilder;

export function firmTables(db: Knex, firmId: string): Table {
  return (table) => db(table).where(`${table}.firm_id`, firmId);
}

/** A month as a number: year × 12 + month index. */
export const monthOf = (date: string) => Number(date.slice(0, 4)) * 12 + Number(date.slice(5, 7)) - 1;
const monthText = (m: number) => `${Math.floor(m / 12)}-${String((m % 12) + 1).padStart(2, '0')}`;
export const lastDayOf = (m: number) =>
  `${monthText(m)}-${String(new Date(Date.UTC(Math.floor(m / 12), (m % 12) + 1, 0)).getUTCDate()).padStart(2, '0')}`;

/** The firm's table rates into its currency: the latest on or before a date; 1 in the firm's currency. */
export interface Rates {
  preferred: string;
  rateOn(currency: string, date: string): string | null;
}

export async function loadRates(db: Knex, firmId: string): Promise<Rates> {
  const t = firmTables(db, firmId);
  const firm = await db('firms').where('id', firmId).first('preferred_currency');
  const preferred = String(firm.preferred_currency);
  const rows = (await t('fx_rates')
    .where('to_currency', preferred)
    .orderBy('date')
    .select('from_currency', 'date', 'rate')) as { from_currency: string; date: string; rate: string }[];
  return {
    preferred,
    rateOn(currency, date) {
      if (currency === preferred) return '1';
      let found: string | null = null;
      for (const r of rows) if (r.from_currency === currency && r.date <= date) found = r.rate;
      return found;
    },
  };
}

/** An amount in the firm's currency at the rate of `date`, to the cent; as it is in the firm's currency. */
export function toFirm(rates: Rates, value: string, currency: string, date: string): string | null {
  if (currency === rates.preferred) return value;
  const rate = rates.rateOn(currency, date);
  return rate === null ? null : D.toFixed(D.mul(D.readDecimal(value)!, D.readDecimal(rate)!), 2);
}

export interface CompanyRow {
  id: string;
  name: string;
  status: string;
  sector: string;
  reporting_currency: string;
  fiscal_year_end: string;
}

/** One company's figures; money in the firm's currency, the growth in the company's own. */
export interface Figures {
  company: CompanyRow;
  /** No actual data in the 3 months before the firm's latest month with any, or none at all. */
  stale: boolean;
  arr: string | null;
  arrGrowthYoy: string | null;
  cash: string | null;
  runway: string | null;
}

interface Datum {
  id: string;
  company_id: string;
  category_id: string;
  cadence: string;
  date: string;
  value: string;
  currency: string | null;
  archived: unknown;
  created_at: string;
  updated_at: string;
}

/** The categories whose newest month is a company's as-of month (those of its financial summary). */
const SUMMARY = [
  'revenue',
  'arr',
  'net_burn',
  'cash_in_bank',
  'headcount',
  'gross_margin',
  'ebitda',
  'net_income',
  'gross_profit',
  'net_new_arr',
  'expansion_arr',
  'contraction_arr',
  'churned_arr',
];
const NAMES = new Map(SUMMARY.map((c) => [standardCategoryId(c), c]));

/** Of two rows of one month: the current one, then the later date, the later edit, the later entry, the larger id. */
function better(a: Datum, b: Datum): Datum {
  if (Boolean(a.archived) !== Boolean(b.archived)) return a.archived ? b : a;
  for (const k of ['date', 'updated_at', 'created_at', 'id'] as const)
    if (a[k] !== b[k]) return a[k] > b[k] ? a : b;
  return a;
}

/** One row per month of one category and cadence. */
function series(rows: readonly Datum[], category: string, cadence: string): Map<number, Datum> {
  const out = new Map<number, Datum>();
  for (const r of rows) {
    if (NAMES.get(r.category_id) !== category || r.cadence !== cadence) continue;
    const m = monthOf(r.date);
    const held = out.get(m);
    out.set(m, held ? better(held, r) : r);
  }
  return out;
}

const numberOf = (d: Datum | undefined) => (d ? D.readDecimal(d.value) : null);

/** The newest row of a month-keyed series in [from, to]. */
function newest(s: Map<number, Datum>, from: number, to: number): Datum | undefined {
  const months = [...s.keys()].filter((m) => m >= from && m <= to);
  return months.length ? s.get(Math.max(...months)) : undefined;
}

/** Net burn of the 3 months to `E`: three monthly rows, else the quarterly row ending in those months. */
function burnOf3(rows: readonly Datum[], E: number): D.Decimal | null {
  const monthly = series(rows, 'net_burn', 'month');
  const three = [E - 2, E - 1, E].map((m) => numberOf(monthly.get(m)));
  if (three.every((v) => v !== null)) return D.sum(three as D.Decimal[]);
  if ([E - 2, E - 1, E].some((m) => !monthly.has(m))) {
    const quarter = newest(series(rows, 'net_burn', 'quarter'), E - 2, E);
    return numberOf(quarter);
  }
  return null;
}

/** cash × 3 / burn of 3 months, 2 decimals; null when not burning, cash is negative or a value is missing. */
function runwayOf(cash: D.Decimal | null, burn: D.Decimal | null): string | null {
  if (cash === null || burn === null || D.sign(burn) <= 0 || D.sign(cash) < 0) return null;
  return D.toText(D.div(D.mul(cash, D.fromInteger(3)), burn, 2));
}

function figuresOf(company: CompanyRow, rows: readonly Datum[], rates: Rates): Omit<Figures, 'stale'> {
  const summary = rows.filter((r) => NAMES.has(r.category_id));
  const none = { company, arr: null, arrGrowthYoy: null, cash: null, runway: null };
  if (summary.length === 0) return none;
  const E = Math.max(...summary.map((r) => monthOf(r.date)));
  const currency = (r: Datum) => r.currency ?? company.reporting_currency;
  const money = (r: Datum | undefined) =>
    r && numberOf(r) ? toFirm(rates, D.toText(numberOf(r)!), currency(r), lastDayOf(monthOf(r.date))) : null;
  const arrs = series(summary, 'arr', 'point_in_time');
  const arr = newest(arrs, E - 11, E);
  const base = arr && numberOf(arrs.get(monthOf(arr.date) - 12));
  const latest = numberOf(arr);
  const cash = newest(series(summary, 'cash_in_bank', 'point_in_time'), E - 11, E);
  return {
    company,
    arr: money(arr),
    arrGrowthYoy:
      latest && base && D.sign(base) > 0
        ? D.toText(D.div(D.mul(D.sub(latest, base), D.fromInteger(100)), base, 2))
        : null,
    cash: money(cash),
    runway: runwayOf(numberOf(cash), burnOf3(summary, E)),
  };
}

/** Every company's figures, from its actual rows (not deleted, not budgets) up to the end of this month. */
export async function companyFigures(t: Table, rates: Rates, today: string): Promise<Figures[]> {
  const through = lastDayOf(monthOf(today));
  const companies = (await t('companies').select(
    'id',
    'name',
    'status',
    'sector',
    'reporting_currency',
    'fiscal_year_end',
  )) as CompanyRow[];
  const rows = (await t('metric_data')
    .whereNull('deleted_at')
    .whereNull('budget_id')
    .where('date', '<=', through)
    .select(
      'id',
      'company_id',
      'category_id',
      'cadence',
      'date',
      'value',
      'currency',
      'archived',
      'created_at',
      'updated_at',
    )) as Datum[];
  const byCompany = new Map<string, Datum[]>();
  for (const r of rows) {
    const own = byCompany.get(r.company_id);
    if (own) own.push(r);
    else byCompany.set(r.company_id, [r]);
  }
  const last = new Map(
    companies.map((c) => {
      const own = byCompany.get(c.id) ?? [];
      return [c.id, own.length ? Math.max(...own.map((r) => monthOf(r.date))) : null];
    }),
  );
  const firmLatest = Math.max(...[...last.values()].filter((m): m is number => m !== null));
  return companies.map((c) => ({
    ...figuresOf(c, byCompany.get(c.id) ?? [], rates),
    stale: last.get(c.id) === null || last.get(c.id)! < firmLatest - 3,
  }));
}

/** The median of numbers: the mean of the middle two for an even count. */
export function median(xs: readonly number[]): number {
  const s = [...xs].sort((a, b) => a - b);
  return s.length % 2 ? s[(s.length - 1) / 2]! : (s[s.length / 2 - 1]! + s[s.length / 2]!) / 2;
}
