// How the cap table's records lie in their tables: money amounts as four columns, details as JSON
// text, and one generic mapper from a record to the row an insert or an update writes.
import { newId } from '../ids.ts';
import type {
  FairValueOverride,
  NewFinancing,
  NewSecurity,
  NewShareClass,
  NewTransaction,
  PostMoneyOverride,
  SecurityRecord,
  StoredMoney,
} from './cap-table-types.ts';
import { bool, type QB } from './util.ts';

export type Raw = Record<string, unknown>;

type MoneySuffix = 'value' | 'currency' | 'fx_rate' | 'is_custom_rate';
/** The four columns of a money amount in a query result (`<prefix>_value` …). */
export type MoneyColumns<P extends string> = { [K in `${P}_${MoneySuffix}`]: unknown };

export interface FinancingRow extends MoneyColumns<'pre_money'>, MoneyColumns<'round_size'> {
  id: string;
  firm_id: string;
  company_id: string;
  company_name: string;
  name: string;
  closing_date: string;
  round_size_converted_value: string | null;
  fully_diluted_shares: string | null;
  is_crypto: unknown;
  liquidation_multiple: string | null;
  cap_multiple: string | null;
  seniority_position: string | null;
  participation_type: string | null;
  created_at: string;
}

export interface ShareClassRow extends MoneyColumns<'price_per_share'> {
  id: string;
  company_id: string;
  company_name: string;
  financing_id: string;
  closing_date: string;
  purchase_type: string;
  type: string;
  name: string;
  include_in_fair_value: unknown;
}

/** A security as stored: its record with `details` still the JSON text (or object) the database gave. */
export type SecurityRow = Omit<SecurityRecord, 'details'> & { details: unknown };

export interface TransactionRow extends MoneyColumns<'investment_amount'>, MoneyColumns<'proceeds'> {
  id: string;
  company_id: string;
  company_name: string;
  input_security_id: string | null;
  output_security_id: string | null;
  date: string;
  event: string;
  shares: string | null;
}

export interface FairValueOverrideRow extends MoneyColumns<'fair_value'> {
  company_id: string;
  fund_id: string;
  date: string;
}

const moneySuffixes = ['value', 'currency', 'fx_rate', 'is_custom_rate'] as const;

export function moneyColumns(table: string, prefix: string): string[] {
  return moneySuffixes.map((s) => `${table}.${prefix}_${s}`);
}

/** A nullable text column. */
export function textOrNull(v: unknown): string | null {
  return (v as string | null) ?? null;
}

/** A nullable boolean column. */
export function flagOrNull(v: unknown): boolean | null {
  return v === null || v === undefined ? null : bool(v);
}

export function readMoney<P extends string>(row: MoneyColumns<P>, prefix: P): StoredMoney {
  const raw = row as Raw;
  return {
    value: textOrNull(raw[`${prefix}_value`]),
    currency: textOrNull(raw[`${prefix}_currency`]),
    fx_rate: textOrNull(raw[`${prefix}_fx_rate`]),
    is_custom_rate: flagOrNull(raw[`${prefix}_is_custom_rate`]),
  };
}

/** The four columns of a money amount, for an insert or an update. */
export function writeMoney(prefix: string, money: StoredMoney): Raw {
  return {
    [`${prefix}_value`]: money.value,
    [`${prefix}_currency`]: money.currency,
    [`${prefix}_fx_rate`]: money.fx_rate,
    [`${prefix}_is_custom_rate`]: money.is_custom_rate,
  };
}

export function parseDetails(text: unknown): Record<string, unknown> {
  if (typeof text !== 'string') return (text as Record<string, unknown> | null) ?? {};
  try {
    const parsed: unknown = JSON.parse(text);
    return parsed && typeof parsed === 'object' && !Array.isArray(parsed)
      ? (parsed as Record<string, unknown>)
      : {};
  } catch {
    return {};
  }
}

/** The columns of a round that a later import may change. */

/**
 * How a record lies in its table: the columns copied as they are, the money amounts (field → the
 * prefix of its four columns) and the fields stored as JSON text.
 */
interface RowShape<T> {
  columns: readonly (keyof T & string)[];
  money?: { readonly [K in keyof T & string]?: string };
  json?: readonly (keyof T & string)[];
}

/** The row `shape` makes of `record`, after the columns of `extra` (the firm, an id, a time). */
export function tableRow<T>(shape: RowShape<T>, record: T, extra: Raw = {}): Raw {
  const row: Raw = { ...extra };
  for (const column of shape.columns) {
    row[column] = shape.json?.includes(column) ? JSON.stringify(record[column]) : record[column];
  }
  for (const [field, prefix] of Object.entries(shape.money ?? {}) as [keyof T & string, string][]) {
    Object.assign(row, writeMoney(prefix, record[field] as StoredMoney));
  }
  return row;
}

/** The columns of a round that a later import may change. */
export const FINANCING_FIELDS: RowShape<NewFinancing> = {
  columns: [
    'name',
    'closing_date',
    'round_size_converted_value',
    'fully_diluted_shares',
    'is_crypto',
    'liquidation_multiple',
    'cap_multiple',
    'seniority_position',
    'participation_type',
  ],
  money: { pre_money: 'pre_money', round_size: 'round_size' },
};

/** A whole round as inserted. */
export const FINANCING: RowShape<NewFinancing> = {
  ...FINANCING_FIELDS,
  columns: ['id', 'company_id', ...FINANCING_FIELDS.columns, 'created_at'],
};

export const SHARE_CLASS: RowShape<NewShareClass> = {
  columns: [
    'id',
    'company_id',
    'financing_id',
    'purchase_type',
    'type',
    'name',
    'include_in_fair_value',
    'created_at',
  ],
  money: { price_per_share: 'price_per_share' },
};

export const SECURITY: RowShape<NewSecurity> = {
  columns: [
    'id',
    'company_id',
    'fund_id',
    'financing_id',
    'share_class_id',
    'type',
    'issue_date',
    'details',
    'created_at',
  ],
  json: ['details'],
};

export const TRANSACTION: RowShape<NewTransaction> = {
  columns: [
    'id',
    'company_id',
    'input_security_id',
    'output_security_id',
    'date',
    'event',
    'shares',
    'created_at',
  ],
  money: { investment_amount: 'investment_amount', proceeds: 'proceeds' },
};

export const FAIR_VALUE_OVERRIDE: RowShape<FairValueOverride> = {
  columns: ['company_id', 'fund_id', 'date'],
  money: { fair_value: 'fair_value' },
};

export const POST_MONEY_OVERRIDE: RowShape<PostMoneyOverride> = {
  columns: ['company_id', 'date'],
  money: { post_money_valuation: 'post_money' },
};

export function coInvestorRows(round: NewFinancing): Raw[] {
  return round.co_investors.map((c, position) => ({
    id: newId(),
    financing_id: round.id,
    name: c.name,
    is_lead: c.is_lead,
    position,
  }));
}

export function pariPassuRows(round: NewFinancing): Raw[] {
  return round.pari_passu_ids.map((other, position) => ({
    financing_id: round.id,
    other_financing_id: other,
    position,
  }));
}

/** Batches of ids small enough for any database's bound-parameter limit. */
export const ID_BATCH = 500;

export function withCompanyName(qb: QB, table: string): QB {
  return qb.join('companies', 'companies.id', `${table}.company_id`);
}
