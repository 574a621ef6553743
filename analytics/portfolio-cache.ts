// A bounded per-node cache of each company's portfolio inputs (its newest actual month, its converted series
// and summary), checked against the database on every call: an entry is used only while the company's newest
// change event, the firm's newest firm-wide event, the firm's currency, its FX rates and the month the figures
// are computed through are all as they were when it was made. Nothing here is the only copy of anything: a
// node that has never seen the firm, or another node, computes the same figures from the rows.
import type { Knex } from 'knex';
import type { FxRateRow } from '../db/repos/analytics.ts';
import type { Summary } from './financial-summary.ts';
import type { CompanyFigures } from './screen-figures.ts';
import type { CompanyData, Month } from './series.ts';

/** What one company contributes to every portfolio call, independent of the caller. */
export interface CachedCompany {
  /** The company's newest event seq, name and reporting currency when this was computed. */
  key: string;
  /** Newest month with any actual data on or before the month computed through; null when none. */
  lastReported: Month | null;
  /** The converted series and summary; absent when only the newest month was needed so far. */
  computed?: ComputedCompany;
}

/** A company's converted series and summary, and its screen figures once computed without budget or cap-table data. */
export interface ComputedCompany {
  data: CompanyData;
  summary: Summary;
  /** Depends on nothing else (the rates and firm currency are in the firm-level key). */
  figures?: CompanyFigures;
}

interface FirmCache {
  /** Through month, firm currency, firm-wide event seq and FX rates the entries were computed with. */
  key: string;
  companies: Map<string, CachedCompany>;
}

/** Firms kept per database handle; the least recently used one is dropped beyond this. */
const MAX_FIRMS = 16;

const caches = new WeakMap<object, Map<string, FirmCache>>();

/** A fingerprint of the rates as loaded: every row, so an added, removed or changed rate changes it. */
export function ratesKey(rows: readonly FxRateRow[]): string {
  return rows.map((r) => `${r.from_currency}>${r.to_currency}@${r.date}=${r.rate}`).join(';');
}

/**
 * The firm's entries for this firm-level key (emptied when the key differs from the stored one). Inside a
 * transaction the handle is the transaction's, so nothing outside it sees what it read.
 */
export function firmCache(db: object, firmId: string, key: string): Map<string, CachedCompany> {
  let firms = caches.get(db);
  if (!firms) {
    firms = new Map();
    caches.set(db, firms);
  }
  let cache = firms.get(firmId);
  if (cache) firms.delete(firmId);
  if (!cache || cache.key !== key) cache = { key, companies: new Map() };
  firms.set(firmId, cache);
  while (firms.size > MAX_FIRMS) firms.delete(firms.keys().next().value!);
  return cache.companies;
}

/** The key of one company's entry: its newest event, and the company fields its data is computed with. */
export function companyKey(seq: number | undefined, name: string, reportingCurrency: string): string {
  return `${seq ?? 0}|${reportingCurrency}|${name}`;
}

/** The firm's current entries on this handle (empty when none). */
export function cachedCompanies(db: Knex, firmId: string): ReadonlyMap<string, CachedCompany> {
  return caches.get(db)?.get(firmId)?.companies ?? new Map();
}

/** Forgets every entry made over this handle: the next call computes every company from its rows. */
export function clearPortfolioCache(db: Knex): void {
  caches.delete(db);
}
