import { z } from 'zod';
import { decimalFromNumber, multiplyDecimal, normalizeDecimal, scaleOf } from '../../core/decimal.ts';
import type { SecurityRecord, StoredMoney } from '../../db/repos/cap-table.ts';
import { type DatedMoney, MoneyAmount, type MoneyConverter } from './money.ts';

// A security row keeps its kind-specific fields in `details`, named as in the reference *Out shapes:
// amounts are decimal strings (numbers are accepted) and money fields are objects
// {value, currency, fx_rate, is_custom_rate}. Money is converted at the issue date.
//   certificate        investment_amount¤, shares (share_class_name comes from the share class)
//   convertible        convertible_type, discount, valuation_cap¤, maturity_date, interest_rate,
//                      days_convention, investment_amount¤, accrued_interest
//   public_equity      price_per_share¤, shares, investment_amount¤
//   token_convertible  token, purchase_amount¤
//   token_investment   token, investment_amount¤, quantity, price_per_token¤
//   token_warrant      token, due_date, total_cost¤, exercise_price¤, quantity
//   warrant            due_date, exercise_price¤, shares, total_cost (computed when absent)
// Fields the storage can leave empty are nullable here even where the reference requires them.

export const SECURITY_TYPES = [
  'certificate',
  'warrant',
  'public_equity',
  'token_investment',
  'token_warrant',
  'token_convertible',
  'convertible',
] as const;
export type SecurityType = (typeof SECURITY_TYPES)[number];

export const CONVERTIBLE_TYPES = ['convertible_note', 'basic_note', 'safe', 'kiss'] as const;

const MONEY_FIELDS: Record<SecurityType, readonly string[]> = {
  certificate: ['investment_amount'],
  convertible: ['valuation_cap', 'investment_amount'],
  public_equity: ['price_per_share', 'investment_amount'],
  token_convertible: ['purchase_amount'],
  token_investment: ['investment_amount', 'price_per_token'],
  token_warrant: ['total_cost', 'exercise_price'],
  warrant: ['exercise_price'],
};

const decimalOut = (description: string) => z.string().nullable().describe(`${description} Decimal string.`);

function common<T extends SecurityType>(type: T) {
  return {
    id: z.string().describe('Security id.'),
    issue_date: z.string().describe('Issue date, YYYY-MM-DD.'),
    fund_id: z.string().describe('Fund holding the security.'),
    company_id: z.string(),
    type: z.literal(type),
    fund_name: z.string(),
    company_name: z.string(),
  };
}

export const CertificateOut = z.object({
  ...common('certificate'),
  investment_amount: MoneyAmount,
  shares: decimalOut('Shares held.'),
  share_class_id: z.string().nullable(),
  financing_id: z.string().nullable(),
  share_class_name: z.string().nullable(),
});

export const WarrantOut = z.object({
  ...common('warrant'),
  due_date: z.string().nullable().describe('Expiry date, YYYY-MM-DD.'),
  exercise_price: MoneyAmount.describe('Exercise price per share.'),
  shares: decimalOut('Shares the warrant can be exercised for.'),
  financing_id: z.string().nullable(),
  total_cost: z.string().optional().describe('Exercise price × shares, in the exercise price currency.'),
});

export const PublicEquityOut = z.object({
  ...common('public_equity'),
  price_per_share: MoneyAmount,
  shares: decimalOut('Shares held.'),
  investment_amount: MoneyAmount,
});

export const TokenInvestmentOut = z.object({
  ...common('token_investment'),
  token: z.string().nullable().describe('Token symbol.'),
  investment_amount: MoneyAmount,
  quantity: decimalOut('Tokens held.'),
  price_per_token: MoneyAmount,
  financing_id: z.string().nullable(),
});

export const TokenWarrantOut = z.object({
  ...common('token_warrant'),
  token: z.string().nullable().describe('Token symbol.'),
  due_date: z.string().nullable().describe('Expiry date, YYYY-MM-DD.'),
  total_cost: MoneyAmount,
  exercise_price: MoneyAmount,
  quantity: decimalOut('Tokens the warrant can be exercised for.'),
  financing_id: z.string().nullable(),
});

export const TokenConvertibleOut = z.object({
  ...common('token_convertible'),
  token: z.string().nullable().describe('Token symbol.'),
  purchase_amount: MoneyAmount,
  financing_id: z.string().nullable(),
});

export const ConvertibleOut = z.object({
  ...common('convertible'),
  convertible_type: z
    .enum(CONVERTIBLE_TYPES)
    .nullable()
    .describe('convertible_note, basic_note, safe or kiss.'),
  discount: decimalOut('Discount on conversion, as a fraction (0.20 = 20 %).'),
  valuation_cap: MoneyAmount.nullable(),
  maturity_date: z.string().nullable().describe('Maturity date, YYYY-MM-DD.'),
  interest_rate: decimalOut('Annual interest rate, as a fraction.'),
  days_convention: z
    .union([z.literal(360), z.literal(365)])
    .nullable()
    .describe('Day-count convention.'),
  investment_amount: MoneyAmount,
  financing_id: z.string().nullable(),
  accrued_interest: decimalOut('Accrued interest.'),
});

/** One security of any kind; `type` says which. */
export const Security = z.discriminatedUnion('type', [
  CertificateOut,
  WarrantOut,
  PublicEquityOut,
  TokenInvestmentOut,
  TokenWarrantOut,
  TokenConvertibleOut,
  ConvertibleOut,
]);
export type Security = z.infer<typeof Security>;

export function isSecurityType(type: string): type is SecurityType {
  return (SECURITY_TYPES as readonly string[]).includes(type);
}

function decimalText(v: unknown): string | null {
  if (typeof v === 'number') return decimalFromNumber(v);
  if (typeof v === 'string') return normalizeDecimal(v);
  return null;
}

function text(v: unknown): string | null {
  return typeof v === 'string' && v !== '' ? v : null;
}

const NO_MONEY: StoredMoney = { value: null, currency: null, fx_rate: null, is_custom_rate: null };

function storedMoney(v: unknown): StoredMoney {
  if (!v || typeof v !== 'object') return NO_MONEY;
  const o = v as Record<string, unknown>;
  return {
    value: decimalText(o.value),
    currency: text(o.currency),
    fx_rate: decimalText(o.fx_rate),
    is_custom_rate: typeof o.is_custom_rate === 'boolean' ? o.is_custom_rate : null,
  };
}

/** Every money amount of a security, for loading the rates they need. */
export function securityAmounts(row: SecurityRecord): DatedMoney[] {
  if (!isSecurityType(row.type)) return [];
  return MONEY_FIELDS[row.type].map((field) => ({
    money: storedMoney(row.details[field]),
    date: row.issue_date,
  }));
}

/** The fields every kind of security shows. */
type SecurityBase = Pick<
  Security,
  'id' | 'issue_date' | 'fund_id' | 'company_id' | 'fund_name' | 'company_name'
>;

/** A warrant; its total cost, when not stored, is the exercise price × shares at the price's scale. */
function warrantOut(
  base: SecurityBase,
  row: SecurityRecord,
  money: (field: string) => ReturnType<MoneyConverter['amount']>,
): Extract<Security, { type: 'warrant' }> {
  const d = row.details;
  const price = storedMoney(d.exercise_price);
  const shares = decimalText(d.shares);
  const totalCost =
    decimalText(d.total_cost) ??
    (price.value !== null && shares !== null
      ? multiplyDecimal(price.value, shares, scaleOf(price.value) + scaleOf(shares), scaleOf(price.value))
      : null);
  return {
    ...base,
    type: 'warrant',
    due_date: text(d.due_date),
    exercise_price: money('exercise_price'),
    shares,
    financing_id: row.financing_id,
    ...(totalCost !== null ? { total_cost: totalCost } : {}),
  };
}

/** A convertible; an unknown convertible type or day count reads as null. */
function convertibleOut(
  base: SecurityBase,
  row: SecurityRecord,
  fx: MoneyConverter,
): Extract<Security, { type: 'convertible' }> {
  const d = row.details;
  const kind = text(d.convertible_type);
  const days = d.days_convention === 360 || d.days_convention === 365 ? d.days_convention : null;
  return {
    ...base,
    type: 'convertible',
    convertible_type:
      kind && (CONVERTIBLE_TYPES as readonly string[]).includes(kind)
        ? (kind as (typeof CONVERTIBLE_TYPES)[number])
        : null,
    discount: decimalText(d.discount),
    valuation_cap: fx.optionalAmount(storedMoney(d.valuation_cap), row.issue_date),
    maturity_date: text(d.maturity_date),
    interest_rate: decimalText(d.interest_rate),
    days_convention: days,
    investment_amount: fx.amount(storedMoney(d.investment_amount), row.issue_date),
    financing_id: row.financing_id,
    accrued_interest: decimalText(d.accrued_interest),
  };
}

/** The *Out shape of a security of a known kind. */
export function toSecurity(row: SecurityRecord & { type: SecurityType }, fx: MoneyConverter): Security {
  const d = row.details;
  const money = (field: string) => fx.amount(storedMoney(d[field]), row.issue_date);
  const base: SecurityBase = {
    id: row.id,
    issue_date: row.issue_date,
    fund_id: row.fund_id,
    company_id: row.company_id,
    fund_name: row.fund_name,
    company_name: row.company_name,
  };
  switch (row.type) {
    case 'certificate':
      return {
        ...base,
        type: 'certificate',
        investment_amount: money('investment_amount'),
        shares: decimalText(d.shares),
        share_class_id: row.share_class_id,
        financing_id: row.financing_id,
        share_class_name: row.share_class_name ?? text(d.share_class_name),
      };
    case 'warrant':
      return warrantOut(base, row, money);
    case 'public_equity':
      return {
        ...base,
        type: 'public_equity',
        price_per_share: money('price_per_share'),
        shares: decimalText(d.shares),
        investment_amount: money('investment_amount'),
      };
    case 'token_investment':
      return {
        ...base,
        type: 'token_investment',
        token: text(d.token),
        investment_amount: money('investment_amount'),
        quantity: decimalText(d.quantity),
        price_per_token: money('price_per_token'),
        financing_id: row.financing_id,
      };
    case 'token_warrant':
      return {
        ...base,
        type: 'token_warrant',
        token: text(d.token),
        due_date: text(d.due_date),
        total_cost: money('total_cost'),
        exercise_price: money('exercise_price'),
        quantity: decimalText(d.quantity),
        financing_id: row.financing_id,
      };
    case 'token_convertible':
      return {
        ...base,
        type: 'token_convertible',
        token: text(d.token),
        purchase_amount: money('purchase_amount'),
        financing_id: row.financing_id,
      };
    case 'convertible':
      return convertibleOut(base, row, fx);
  }
}
