// Portfolio-wide reads for the screen and overview tools: every visible company's summary figures from a
// handful of set-based queries, computed by the same function as get_company_financial_summary.
import { endOfMonth } from '../core/clock.ts';
import { InvalidInput, NotFound } from '../core/errors.ts';
import type { AnalyticsDatum, FxRateRow } from '../db/repos/analytics.ts';
import type { CompanyFilter, CompanyRow } from '../db/repos/companies.ts';
import { checkStatus } from './company-status.ts';
import type { ReadContext } from './context.ts';
import type { Figure, PortfolioFigure } from './figure.ts';
import { PORTFOLIO_LOOKBACK, SUMMARY_CATEGORIES, type Summary, summarize } from './financial-summary.ts';
import {
  type CachedCompany,
  type ComputedCompany,
  companyKey,
  firmCache,
  ratesKey,
} from './portfolio-cache.ts';
import {
  type CompanyData,
  convertAmount,
  firstDay,
  type Month,
  monthOf,
  ratesByCurrency,
  toCompanyData,
} from './series.ts';

/** A company is stale when its newest actual data is older than this many months before the firm's newest. */
export const STALE_AFTER_MONTHS = 3;

export interface PortfolioCompany {
  company: CompanyRow;
  /** Newest month with any actual (non-budget) data; null when none. */
  lastReported: Month | null;
  stale: boolean;
  data: CompanyData;
  summary: Summary;
  /** The cache's record of this company (its figures are kept there), for this call's inputs. */
  computed: ComputedCompany;
}

export interface Portfolio {
  preferred: string;
  /** Newest month with actual data over every visible company; null when there is none. */
  firmLatest: Month | null;
  companies: PortfolioCompany[];
  rates: Map<string, FxRateRow[]>;
}

export interface PortfolioFilter {
  status?: string;
  sector?: string;
  fund_id?: string;
  reporting_currency?: string;
  /** Only these companies (staleness is still judged against every visible company). */
  company_ids?: string[];
}

/** Rejects a fund, status or sector the caller cannot match, naming the valid ones. */
async function checkFilter(ctx: ReadContext, filter: PortfolioFilter): Promise<void> {
  const { scope, firm } = ctx.principal;
  if (filter.fund_id && !(await ctx.repos.funds.get(firm.id, filter.fund_id))) {
    throw new NotFound(`no fund with id ${filter.fund_id}; call list_funds for valid ids`);
  }
  await checkStatus(ctx, filter.status);
  if (filter.sector !== undefined) {
    const sectors = await ctx.repos.companies.distinctValues(scope, 'sector');
    if (!sectors.some((s) => s.toLowerCase() === filter.sector!.toLowerCase())) {
      throw new InvalidInput(`sector must be one of: ${sectors.join(', ')}`, [
        { field: 'sector', message: `must be one of: ${sectors.join(', ')}` },
      ]);
    }
  }
}

/**
 * Computes the summary of each of `companies` from its rows (one series query per distinct as-of
 * month) and keeps it on the company's entry.
 */
async function computeSummaries(
  ctx: ReadContext,
  companies: readonly CompanyRow[],
  entries: Map<string, CachedCompany>,
  { through, preferred, rates }: { through: string; preferred: string; rates: Map<string, FxRateRow[]> },
): Promise<void> {
  const { scope } = ctx.principal;
  const ids = companies.map((c) => c.id);
  const asOfDates = await ctx.repos.analytics.latestDates(scope, ids, through, SUMMARY_CATEGORIES);
  // One series query per distinct as-of month (most companies share their latest month).
  const groups = new Map<Month, string[]>();
  for (const [id, d] of asOfDates) {
    const asOf = monthOf(d);
    groups.set(asOf, [...(groups.get(asOf) ?? []), id]);
  }
  const rowsByCompany = new Map<string, AnalyticsDatum[]>();
  for (const [asOf, group] of groups) {
    const since = new Map([...PORTFOLIO_LOOKBACK].map(([c, back]) => [c, firstDay(asOf - back)]));
    for (const { company_id, ...r } of await ctx.repos.analytics.seriesMany(scope, group, since, through)) {
      const list = rowsByCompany.get(company_id) ?? [];
      list.push(r);
      rowsByCompany.set(company_id, list);
    }
  }
  for (const company of companies) {
    const converted = toCompanyData(
      rowsByCompany.get(company.id) ?? [],
      company.reporting_currency,
      preferred,
      rates,
    );
    const asOf = asOfDates.get(company.id);
    // The as-of month comes from every summary category, as in get_company_financial_summary.
    const data: CompanyData = {
      companyId: company.id,
      companyName: company.name,
      ...converted,
      asOf: asOf ? monthOf(asOf) : null,
    };
    entries.get(company.id)!.computed = { data, summary: summarize(data, 12) };
  }
}

/**
 * Every visible company matching the filter, with its summary figures and staleness. Each company's
 * inputs are reused from the per-node cache while its change events, the firm-wide ones, the firm's
 * currency, its FX rates and the current month are unchanged, and computed from the rows otherwise.
 */
export async function loadPortfolio(ctx: ReadContext, filter: PortfolioFilter): Promise<Portfolio> {
  await checkFilter(ctx, filter);
  const { scope, firm } = ctx.principal;
  const preferred = firm.preferred_currency;
  const visible = await ctx.repos.companies.all(scope, {});
  const companyFilter: CompanyFilter = {
    status: filter.status,
    sectorIs: filter.sector,
    fundId: filter.fund_id,
    reportingCurrency: filter.reporting_currency,
    ids: filter.company_ids,
  };
  const selected = await ctx.repos.companies.all(scope, companyFilter);
  const through = endOfMonth(ctx.clock.now());

  // The versions are read before the rows, so an entry is never stored under a newer version than its rows.
  const seqs = await ctx.repos.events.latestSeqs(firm.id);
  const rateRows = await ctx.repos.analytics.allFxRates(firm.id, preferred);
  const rates = ratesByCurrency(rateRows);
  const cache = firmCache(
    ctx.repos.db,
    firm.id,
    `${through}|${preferred}|${seqs.firmWide}|${ratesKey(rateRows)}`,
  );
  // This call's entries: a concurrent call may replace the cache's, never change these.
  const entries = new Map<string, CachedCompany>();
  const unknownLast: CompanyRow[] = [];
  for (const c of new Map([...visible, ...selected].map((c) => [c.id, c])).values()) {
    const key = companyKey(seqs.byCompany.get(c.id), c.name, c.reporting_currency);
    const entry = cache.get(c.id);
    if (entry?.key === key) entries.set(c.id, entry);
    else {
      entries.set(c.id, { key, lastReported: null });
      unknownLast.push(c);
    }
  }

  // The firm's newest month is over every visible company, so a filter never changes staleness.
  const lastActual = await ctx.repos.analytics.latestDates(
    scope,
    unknownLast.map((c) => c.id),
    through,
  );
  for (const c of unknownLast) {
    const last = lastActual.get(c.id);
    const entry = entries.get(c.id)!;
    entry.lastReported = last ? monthOf(last) : null;
    cache.set(c.id, entry);
  }
  let firmLatest: Month | null = null;
  for (const c of visible) {
    const last = entries.get(c.id)!.lastReported;
    if (last !== null) firmLatest = Math.max(firmLatest ?? 0, last);
  }

  const toCompute = selected.filter((c) => !entries.get(c.id)!.computed);
  await computeSummaries(ctx, toCompute, entries, { through, preferred, rates });

  const companies = selected.map((company): PortfolioCompany => {
    const { lastReported, computed } = entries.get(company.id)!;
    return {
      company,
      lastReported,
      stale: lastReported === null || (firmLatest !== null && lastReported < firmLatest - STALE_AFTER_MONTHS),
      data: computed!.data,
      summary: computed!.summary,
      computed: computed!,
    };
  });
  return { preferred, firmLatest, companies, rates };
}

/** A summary figure with money also in the firm's currency, at the rate on or before the end of its month. */
export function portfolioFigure(
  f: Figure,
  preferred: string,
  rates: Map<string, FxRateRow[]>,
): PortfolioFigure {
  const asOf = f.period?.to ?? null;
  const money = f.unit === 'money';
  const converted = money ? convertAmount(f.value, f.currency, asOf, preferred, rates) : null;
  return {
    value: f.value,
    unit: f.unit,
    as_of_month: asOf,
    currency: money ? f.currency : null,
    converted_value: converted?.value ?? null,
    converted_currency: money ? preferred : null,
    fx_rate: converted?.fx_rate ?? null,
    fx_rate_date: converted?.fx_rate_date ?? null,
    reason: f.reason ?? converted?.reason ?? null,
  };
}
