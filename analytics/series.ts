// The shared core of the analytics: one company's reported values loaded once (never a page), put into
// one currency and bucketed by month in one cadence; the figures over them are in figures.ts.
import { STANDARD_CATEGORIES } from '../core/categories.ts';
import { endOfMonth } from '../core/clock.ts';
import * as D from '../core/decimal.ts';
import { NotFound } from '../core/errors.ts';
import type { AnalyticsDatum, FxRateRow } from '../db/repos/analytics.ts';
import type { ReadContext } from './context.ts';
import type { Converted, Figure, FxRateUsed, Period, Unit } from './figure.ts';

/**
 * Orders ISO dates, currency codes and ids as their characters' codes do. Not localeCompare: these are
 * codes, not words, and the first collation a process makes loads ICU's collation data (about 3 MB).
 */
export function byCodeUnits(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}
export const NO_COMPANY_DATA = 'the company has no data for these categories';

export function noDataBetween(category: string, from: Month, to: Month): string {
  return `no ${category} data between ${monthText(from)} and ${monthText(to)}`;
}

/** A calendar month as a number: year × 12 + month index. */
export type Month = number;

export function monthOf(date: string): Month {
  return Number(date.slice(0, 4)) * 12 + Number(date.slice(5, 7)) - 1;
}

export function monthText(m: Month): string {
  return `${Math.floor(m / 12)}-${String((m % 12) + 1).padStart(2, '0')}`;
}

export function firstDay(m: Month): string {
  return `${monthText(m)}-01`;
}

export function lastDay(m: Month): string {
  const days = new Date(Date.UTC(Math.floor(m / 12), (m % 12) + 1, 0)).getUTCDate();
  return `${monthText(m)}-${String(days).padStart(2, '0')}`;
}

export function monthRange(from: Month, to: Month): Month[] {
  const out: Month[] = [];
  for (let m = from; m <= to; m++) out.push(m);
  return out;
}

export function period(from: Month, to: Month): Period {
  return { from: monthText(from), to: monthText(to) };
}

const categoryInfo = new Map(STANDARD_CATEGORIES.map((c) => [c.name, c]));

export function unitOf(category: string): Unit {
  const kind = categoryInfo.get(category)?.kind;
  if (kind === 'currency') return 'money';
  if (kind === 'percentage') return 'percent';
  if (kind === 'months') return 'months';
  if (kind === 'multiple') return 'multiple';
  return 'number';
}

/** Stocks (cash, ARR, headcount) are point-in-time; flows (revenue, burn) have period cadences. */
export function isStock(category: string): boolean {
  return categoryInfo.get(category)?.pointInTime === true;
}

/** The cadences a flow can be reported in, finest first, with the months each row covers. */
export const FLOW_STEPS = [
  { cadence: 'month', months: 1 },
  { cadence: 'quarter', months: 3 },
  { cadence: 'year', months: 12 },
] as const;

/** One reported value, in the result currency when it is money. */
export interface Observation {
  id: string;
  category: string;
  cadence: string;
  date: string;
  month: Month;
  archived: boolean;
  created_at: string;
  updated_at: string;
  /** Null when the stored text is not a number or no FX rate could convert it. */
  value: D.Decimal | null;
  reason: string | null;
  /** Converted from another currency, or a stored fraction scaled to percent: shown with 2 decimals. */
  converted: boolean;
}

export interface CompanyData {
  companyId: string;
  companyName: string;
  /** The company's fiscal year end, MM-DD. */
  fiscalYearEnd?: string;
  /** The latest month with data in the requested categories; null when there is none. */
  asOf: Month | null;
  /** The one currency every money value is expressed in; null when no money was read. */
  currency: string | null;
  currencyNote: string;
  fxRatesUsed: FxRateUsed[];
  byCategory: Map<string, Observation[]>;
  /** Rates into the firm's preferred currency by source currency, for converting the money figures. */
  rates: Map<string, FxRateRow[]>;
}

function findRate(rates: readonly FxRateRow[], date: string): FxRateRow | undefined {
  let found: FxRateRow | undefined;
  for (const r of rates) {
    if (r.date <= date) found = r;
    else break;
  }
  return found;
}

/**
 * Loads every reported value of `categories` for one visible company, from `fetchFrom(asOf)` to the
 * end of the latest month with data. Money is kept as reported when the company uses one currency,
 * and otherwise converted into the firm's preferred currency at the latest rate on or before each
 * value's date (a value without a rate becomes null with the reason). A money row without a
 * currency is taken to be in the company's reporting currency.
 */
export async function loadCompanyData(
  ctx: ReadContext,
  companyId: string,
  categories: readonly string[],
  fetchFrom: (asOf: Month) => Month,
): Promise<CompanyData> {
  const { scope, firm } = ctx.principal;
  const company = await ctx.repos.companies.get(scope, companyId);
  if (!company) {
    throw new NotFound(
      `no company with id ${companyId}; call list_companies or search_companies for valid ids`,
    );
  }
  const base = { companyId: company.id, companyName: company.name, fiscalYearEnd: company.fiscal_year_end };
  const byCategory = new Map<string, Observation[]>(categories.map((c) => [c, []]));
  const latest = await ctx.repos.analytics.latestDate(
    scope,
    company.id,
    categories,
    endOfMonth(ctx.clock.now()),
  );
  if (!latest) {
    return {
      ...base,
      asOf: null,
      currency: null,
      currencyNote: 'no data reported for these categories',
      fxRatesUsed: [],
      byCategory,
      rates: new Map(),
    };
  }
  const asOf = monthOf(latest);
  const from = firstDay(fetchFrom(asOf));
  const to = lastDay(asOf);
  const rows = await ctx.repos.analytics.series(scope, company.id, categories, from, to);

  const currencies = moneyCurrencies(rows, company.reporting_currency);
  const preferred = firm.preferred_currency;
  const others = currencies.length > 1 ? currencies.filter((c) => c !== preferred) : [];
  const rates =
    others.length > 0 ? await ctx.repos.analytics.fxRates(firm.id, preferred, others, from, to) : [];
  const data = toCompanyData(rows, company.reporting_currency, preferred, ratesByCurrency(rates));
  // Money figures in the company's one currency are also given in the firm's, at the rate of their date.
  const figureRates =
    data.currency && data.currency !== preferred
      ? ratesByCurrency(await ctx.repos.analytics.fxRates(firm.id, preferred, [data.currency], from, to))
      : new Map<string, FxRateRow[]>();
  return { ...base, ...data, asOf, rates: figureRates };
}

const isMoney = (r: AnalyticsDatum) => unitOf(r.category) === 'money';

function moneyCurrencies(rows: readonly AnalyticsDatum[], reporting: string): string[] {
  return [...new Set(rows.filter(isMoney).map((r) => r.currency ?? reporting))].sort();
}

/** Rates grouped by source currency, each list ordered by date. */
export function ratesByCurrency(rates: readonly FxRateRow[]): Map<string, FxRateRow[]> {
  const out = new Map<string, FxRateRow[]>();
  for (const r of rates) {
    const list = out.get(r.from_currency) ?? [];
    list.push(r);
    out.set(r.from_currency, list);
  }
  return out;
}

/** The latest rate on or before `date` from a date-ordered list. */
export function rateOn(rates: readonly FxRateRow[] | undefined, date: string): FxRateRow | undefined {
  return findRate(rates ?? [], date);
}

/**
 * One company's rows in one currency: as reported when it uses one currency, otherwise converted into
 * the firm's preferred currency at the latest rate on or before each value's date. Shared by the
 * per-company tools and the portfolio screen so both compute from the same observations.
 */
export function toCompanyData(
  rows: readonly AnalyticsDatum[],
  reporting: string,
  preferred: string,
  rates: Map<string, FxRateRow[]>,
): Pick<CompanyData, 'currency' | 'currencyNote' | 'fxRatesUsed' | 'byCategory' | 'rates'> & {
  asOf: Month | null;
} {
  const byCategory = new Map<string, Observation[]>();
  const currencyOf = (r: AnalyticsDatum) => r.currency ?? reporting;
  const currencies = moneyCurrencies(rows, reporting);
  const convert = currencies.length > 1;
  const used = new Map<string, FxRateUsed>();
  let asOf: Month | null = null;

  for (const r of rows) {
    const parsed = D.readDecimal(r.value);
    const obs: Observation = {
      id: r.id,
      category: r.category,
      cadence: r.cadence,
      date: r.date,
      month: monthOf(r.date),
      archived: r.archived,
      created_at: r.created_at,
      updated_at: r.updated_at,
      value: parsed,
      reason: parsed
        ? null
        : `data point ${r.id} (${r.category}, ${r.date}) holds "${r.value}", not a number`,
      converted: false,
    };
    if (asOf === null || obs.month > asOf) asOf = obs.month;
    // Stored percentages are fractions (0.25); every analytics percentage is in percent (25.00).
    if (parsed && unitOf(r.category) === 'percent') {
      obs.value = D.mul(parsed, D.fromInteger(100));
      obs.converted = true;
    }
    const currency = currencyOf(r);
    if (parsed && convert && isMoney(r) && currency !== preferred) {
      const rate = findRate(rates.get(currency) ?? [], r.date);
      const factor = rate && D.readDecimal(rate.rate);
      if (rate && factor) {
        obs.value = D.mul(parsed, factor);
        obs.converted = true;
        used.set(`${rate.from_currency}|${rate.date}`, {
          from_currency: rate.from_currency,
          to_currency: rate.to_currency,
          date: rate.date,
          rate: rate.rate,
        });
      } else {
        obs.value = null;
        obs.reason =
          `no ${currency}→${preferred} FX rate on or before ${r.date} is known, so data point ${r.id} ` +
          `(${r.category}) cannot be converted`;
      }
    }
    const list = byCategory.get(r.category) ?? [];
    list.push(obs);
    byCategory.set(r.category, list);
  }

  const currency = convert ? preferred : (currencies[0] ?? null);
  const currencyNote = convert
    ? `the company reports money in ${currencies.join(', ')}; every money value is converted to ` +
      `${preferred} (the firm's preferred currency) at the latest rate on or before each data point's date`
    : currency
      ? `every money value is in ${currency}, as reported`
      : 'no money values in this data';
  const fxRatesUsed = [...used.values()].sort(
    (a, b) => byCodeUnits(a.from_currency, b.from_currency) || byCodeUnits(a.date, b.date),
  );
  return { asOf, currency, currencyNote, fxRatesUsed, byCategory, rates };
}

/** Of two rows for the same month: the current one, then the later date, then the later edit. */
function better(a: Observation, b: Observation): Observation {
  if (a.archived !== b.archived) return a.archived ? b : a;
  if (a.date !== b.date) return a.date > b.date ? a : b;
  if (a.updated_at !== b.updated_at) return a.updated_at > b.updated_at ? a : b;
  if (a.created_at !== b.created_at) return a.created_at > b.created_at ? a : b;
  return a.id > b.id ? a : b;
}

/** One value per month from the rows of exactly one cadence; never mixes cadences. */
export function bucket(observations: readonly Observation[], cadence: string): Map<Month, Observation> {
  const out = new Map<Month, Observation>();
  for (const o of observations) {
    if (o.cadence !== cadence) continue;
    const current = out.get(o.month);
    out.set(o.month, current ? better(current, o) : o);
  }
  return out;
}

export interface Chosen {
  cadence: string | null;
  /** Months each row covers, and the spacing of the series: 1, 3 or 12. */
  step: number;
  byMonth: Map<Month, Observation>;
}

/**
 * The series of one category in exactly one cadence: point_in_time for a stock; for a flow the finest
 * cadence with a row in [from, to] (monthly before quarterly before yearly).
 */
export function chooseSeries(
  category: string,
  observations: readonly Observation[],
  from: Month,
  to: Month,
): Chosen {
  if (isStock(category))
    return { cadence: 'point_in_time', step: 1, byMonth: bucket(observations, 'point_in_time') };
  for (const { cadence, months } of FLOW_STEPS) {
    const byMonth = bucket(observations, cadence);
    if ([...byMonth.keys()].some((m) => m >= from && m <= to)) return { cadence, step: months, byMonth };
  }
  return { cadence: null, step: 1, byMonth: new Map() };
}

/** The latest row of a series in [from, to], if any. */
export function latestIn(series: Chosen, from: Month, to: Month): Observation | undefined {
  let best: Observation | undefined;
  for (const [m, o] of series.byMonth) if (m >= from && m <= to && (!best || m > best.month)) best = o;
  return best;
}

/**
 * A money amount of `currency` as of the end of `month` in the firm's preferred currency, at the latest
 * rate on or before that day; null for a null amount.
 */
export function convertAmount(
  value: string | null,
  currency: string | null,
  month: string | null,
  preferred: string,
  rates: Map<string, FxRateRow[]>,
): Converted | null {
  if (value === null || currency === null || month === null) return null;
  if (currency === preferred) {
    return { value, currency: preferred, fx_rate: 1, fx_rate_date: null, reason: null };
  }
  const date = lastDay(monthOf(`${month}-01`));
  const rate = rateOn(rates.get(currency), date);
  const factor = rate && D.readDecimal(rate.rate);
  const amount = D.readDecimal(value);
  if (!rate || !factor || !amount) {
    return {
      value: null,
      currency: preferred,
      fx_rate: null,
      fx_rate_date: null,
      reason: `no ${currency}→${preferred} FX rate on or before ${date} is known`,
    };
  }
  return {
    value: D.toFixed(D.mul(amount, factor), 2),
    currency: preferred,
    fx_rate: Number(rate.rate),
    fx_rate_date: rate.date,
    reason: null,
  };
}

/** The figure with its money also in the firm's preferred currency. */
export function withConverted<F extends Figure>(f: F, preferred: string, rates: Map<string, FxRateRow[]>): F {
  if (f.unit !== 'money') return f;
  return { ...f, converted: convertAmount(f.value, f.currency, f.period?.to ?? null, preferred, rates) };
}
