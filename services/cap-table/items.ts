import {
  companyNotFound,
  type FieldError,
  InvalidInput,
  MissingParameter,
  throwIfUnknownCompany,
} from '../../core/errors.ts';
import type { StoredMoney } from '../../db/repos/cap-table.ts';
import { type ServiceContext, scopeOf } from '../changes.ts';
import { type DatedMoney, rateTable } from '../rates.ts';

// The items of a cap-table write as the services take them: an item that failed its schema is kept,
// with its errors and the raw value, so that a service adds what only the database knows (an
// invisible company, a share class of another company) and answers one 400 naming every field.

export const MAX_ITEMS = 100;

export type Raw = Record<string, unknown>;

/** One item of a list: the parsed value when it passed its schema, the raw object, and its errors so far. */
export interface Item<T> {
  at: string;
  index: number;
  ok: T | null;
  raw: Raw | null;
  errors: FieldError[];
}

/** The lists of a write body that takes several kinds of item, each with its name. */
export type ItemLists<K extends string> = readonly (readonly [K, Item<unknown>[]])[];

/** A money amount as a caller sends it (the parsed MoneyInput). */
export interface MoneyIn {
  value: string | null;
  currency?: string | null | undefined;
  fx_rate?: string | null | undefined;
}

/** The raw string at `key` of an item, when it is a non-empty string. */
export function rawId(item: Item<unknown>, key: string): string | null {
  const v = item.raw?.[key];
  return typeof v === 'string' && v !== '' ? v : null;
}

/** Every id the items give at `key`. */
export function rawIds(items: readonly Item<unknown>[], key: string): string[] {
  return [...new Set(items.flatMap((i) => rawId(i, key) ?? []))];
}

/** Adds an error to an item unless that field already has one (one message per field is enough). */
export function fail(item: Item<unknown>, field: string, message: string): void {
  addError(item, { field: `${item.at}.${field}`, message });
}

/** Adds a field error to an item unless that field already has one. */
export function addError(item: Item<unknown>, error: FieldError): void {
  if (!item.errors.some((e) => e.field === error.field)) item.errors.push(error);
}

/** Checks that the item's company is one the caller can access; true when it is. */
export function checkCompany(item: Item<unknown>, visible: ReadonlyMap<string, unknown>): boolean {
  const id = rawId(item, 'company_id');
  if (id === null) return false;
  if (visible.has(id)) return true;
  addError(item, companyNotFound(`${item.at}.company_id`, id));
  return false;
}

/** Checks that the item's fund is one of the firm's. */
export function checkFund(item: Item<unknown>, funds: ReadonlySet<string>): void {
  const id = rawId(item, 'fund_id');
  if (id !== null && !funds.has(id)) {
    fail(item, 'fund_id', `no fund with id ${id} in your firm; call list_funds for valid ids`);
  }
}

/** A money amount that needs a currency when it has a value: the reference lets both be null. */
export function checkMoney(item: Item<unknown>, key: string, required: boolean): void {
  const m = item.raw?.[key];
  if (!m || typeof m !== 'object') return;
  const money = m as Raw;
  const hasValue = money.value !== undefined && money.value !== null;
  if (required && !hasValue) fail(item, `${key}.value`, 'is required');
  if (hasValue && (money.currency === undefined || money.currency === null)) {
    fail(item, `${key}.currency`, 'is required when value is set');
  }
}

/** Throws one 400 naming every offending field of every list, or returns. */
export function throwIfInvalid(what: string, lists: readonly (readonly Item<unknown>[])[]): void {
  const errors = lists.flatMap((items) => items.flatMap((i) => i.errors));
  if (errors.length === 0) return;
  throwIfUnknownCompany(errors);
  const summary = errors.map((e) => `${e.field}: ${e.message}`).join('; ');
  throw errors.every((e) => e.message === 'is required')
    ? new MissingParameter(`missing ${summary}`, errors)
    : new InvalidInput(`invalid ${what}: ${summary}`, errors);
}

/** A money amount as stored from input: a custom rate is kept and marked, else no rate yet. */
export function storedMoney(m: MoneyIn | null | undefined): StoredMoney {
  if (!m || m.value === null) {
    return { value: null, currency: m?.currency ?? null, fx_rate: null, is_custom_rate: null };
  }
  const custom = m.fx_rate !== null && m.fx_rate !== undefined;
  return {
    value: m.value,
    currency: m.currency ?? null,
    fx_rate: custom ? m.fx_rate! : null,
    is_custom_rate: custom,
  };
}

/**
 * Records the table rate with every amount that has no custom one, so a stored row says what it
 * was converted at (as the financing add does).
 */
export async function withTableRates(ctx: ServiceContext, amounts: DatedMoney[]): Promise<StoredMoney[]> {
  const fx = await rateTable(ctx, amounts);
  return amounts.map(({ money, date }) =>
    money.value === null || money.is_custom_rate ? money : { ...money, fx_rate: fx.rate(money, date).rate },
  );
}

/** The companies among `items`' that the caller can see, by id. */
export function visibleCompanies(ctx: ServiceContext, items: readonly Item<unknown>[]) {
  return ctx.repos.companies.names(scopeOf(ctx), rawIds(items, 'company_id'));
}
