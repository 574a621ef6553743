import { z } from 'zod';
import type { StoredMoney } from '../../db/repos/cap-table.ts';
import type { ToolContext } from '../context.ts';
import {
  companyNotFound,
  type FieldError,
  InvalidInput,
  MissingParameter,
  throwIfUnknownCompany,
} from '../errors.ts';
import { inputError } from '../run.ts';
import { type MoneyInput, moneyConverter } from '../schemas/money.ts';

// The item lists of a cap-table write. An item that fails its schema is kept, with its issues and the
// raw value, instead of failing the whole parse: then the handler adds what only the database knows
// (an invisible company, a share class of another company) and answers one 400 naming every field.

export const MAX_ITEMS = 100;

const REJECTED = Symbol('rejected item');
interface Rejected {
  issues: z.core.$ZodIssue[];
  raw: unknown;
}

export type Raw = Record<string, unknown>;

/** An item schema that never fails the parse: a rejected item carries its issues to `unpack`. */
export function lenient<T extends z.ZodType>(schema: T): z.ZodCatch<T> {
  return schema.catch(
    (c) => ({ [REJECTED]: { issues: c.error.issues, raw: c.input } }) as unknown as z.output<T>,
  );
}

/** One item of a list: the parsed value when it passed its schema, the raw object, and its errors so far. */
export interface Item<T> {
  at: string;
  index: number;
  ok: T | null;
  raw: Raw | null;
  errors: FieldError[];
}

/** The items of the list `name`, each with its schema errors named `name[i].field`. */
export function unpack<T>(name: string, items: readonly T[]): Item<T>[] {
  return items.map((item, index) => {
    const rejected = (item as { [REJECTED]?: Rejected })[REJECTED];
    const at = `${name}[${index}]`;
    if (!rejected) return { at, index, ok: item, raw: item as unknown as Raw, errors: [] };
    const issues = rejected.issues.map((issue) => ({ ...issue, path: [name, index, ...issue.path] }));
    const raw =
      rejected.raw && typeof rejected.raw === 'object' && !Array.isArray(rejected.raw)
        ? (rejected.raw as Raw)
        : null;
    return { at, index, ok: null, raw, errors: [...inputError(new z.ZodError(issues)).errors] };
  });
}

/**
 * The lists of a write body that takes several kinds of item (securities, transactions, overrides),
 * each unpacked under its own name, and all their items together; refused when every list is empty.
 */
export function unpackLists<K extends string>(
  input: Record<K, readonly unknown[]>,
  keys: readonly K[],
  verb: string,
  what: string,
) {
  if (keys.every((k) => input[k].length === 0)) {
    const message = `give at least one ${what}`;
    throw new MissingParameter(
      `nothing to ${verb}: ${message}`,
      keys.map((field) => ({ field, message })),
    );
  }
  const lists = keys.map((k) => [k, unpack(k, input[k])] as const);
  return { lists, all: lists.flatMap(([, items]) => items) };
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
  const name = `${item.at}.${field}`;
  if (!item.errors.some((e) => e.field === name)) item.errors.push({ field: name, message });
}

/** Checks that the item's company is one the caller can access; true when it is. */
export function checkCompany(item: Item<unknown>, visible: ReadonlyMap<string, unknown>): boolean {
  const id = rawId(item, 'company_id');
  if (id === null) return false;
  if (visible.has(id)) return true;
  const name = `${item.at}.company_id`;
  if (!item.errors.some((e) => e.field === name)) item.errors.push(companyNotFound(name, id));
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

/** An item list of a write: 1 to MAX_ITEMS items (`min` 0 for lists that may stay empty). */
export function itemList<T extends z.ZodType>(item: T, description: string, min = 1) {
  const message = `must hold ${min} to ${MAX_ITEMS} items`;
  return z
    .array(lenient(item))
    .min(min, { error: message })
    .max(MAX_ITEMS, { error: message })
    .describe(description);
}

/** A money amount as stored from input: a custom rate is kept and marked, else no rate yet. */
export function storedMoney(m: MoneyInput | null | undefined): StoredMoney {
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
export async function withTableRates(
  ctx: ToolContext,
  amounts: { money: StoredMoney; date: string }[],
): Promise<StoredMoney[]> {
  const fx = await moneyConverter(ctx, amounts, { includeFxDetails: true });
  return amounts.map(({ money, date }) =>
    money.value === null || money.is_custom_rate ? money : { ...money, fx_rate: fx.rate(money, date).rate },
  );
}
