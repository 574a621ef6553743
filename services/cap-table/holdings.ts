import {
  compare,
  type Decimal,
  div,
  mul,
  readDecimal,
  round,
  sign,
  sub,
  toText,
  ZERO,
} from '../../core/decimal.ts';
import type {
  SecurityRecord,
  ShareClassRef,
  StoredMoney,
  TransactionRecord,
} from '../../db/repos/cap-table.ts';

type Details = Record<string, unknown>;

/** A money amount of a security's details, when it has a value and a currency. */
export function detailMoney(details: Details, field: string): StoredMoney | null {
  const m = details[field] as Partial<StoredMoney> | null | undefined;
  if (!m || m.value === null || m.value === undefined || !m.currency) return null;
  return {
    value: String(m.value),
    currency: m.currency,
    fx_rate: m.fx_rate ?? null,
    is_custom_rate: m.is_custom_rate ?? false,
  };
}

/** The shares (or tokens) a security holds as issued. */
export function held(s: SecurityRecord): Decimal | null {
  const v = s.details.shares ?? s.details.quantity;
  return typeof v === 'string' || typeof v === 'number' ? readDecimal(String(v)) : null;
}

/** Money scaled by a factor, to cents at least (the cost of part of a holding). */
export function scaled(money: StoredMoney, factor: Decimal): StoredMoney {
  const value = readDecimal(money.value!)!;
  return { ...money, value: toText(round(mul(value, factor), Math.max(2, value.scale))) };
}

/**
 * Shares a convertible converts into: its principal over the class price less the discount, or over
 * the cap price (valuation cap / the round's fully diluted shares) when that is lower.
 */
export function conversionShares(
  s: SecurityRecord,
  into: ShareClassRef,
): { shares: string } | { error: string } {
  const principal = detailMoney(s.details, 'investment_amount');
  const price = into.price_per_share;
  if (!principal || price.value === null || sign(readDecimal(price.value)!) <= 0) {
    return { error: `share class ${into.id} has no price per share to convert at` };
  }
  if (price.currency !== principal.currency) {
    return {
      error: `share class ${into.id} is priced in ${price.currency}, the convertible in ${principal.currency}`,
    };
  }
  const discount = typeof s.details.discount === 'string' ? readDecimal(s.details.discount) : null;
  let at = readDecimal(price.value)!;
  if (discount) at = mul(at, sub(readDecimal('1')!, discount));
  const cap = detailMoney(s.details, 'valuation_cap');
  const fds = into.fully_diluted_shares === null ? null : readDecimal(into.fully_diluted_shares);
  if (cap && cap.currency === principal.currency && fds && sign(fds) > 0) {
    const capPrice = div(readDecimal(cap.value!)!, fds, 10);
    if (sign(capPrice) > 0 && compare(capPrice, at) < 0) at = capPrice;
  }
  if (sign(at) <= 0) return { error: `the conversion price into share class ${into.id} is 0` };
  const shares = toText(div(readDecimal(principal.value!)!, at, 6)).split('.')[0]!;
  return { shares };
}

/** What each security has left: gone once exercised or converted, fewer shares after a sale. */
export function holdings(
  securities: ReadonlyMap<string, SecurityRecord>,
  past: readonly TransactionRecord[],
) {
  const gone = new Set(past.filter((t) => t.event !== 'sale').map((t) => t.input_security_id));
  const remaining = new Map<string, Decimal>();
  for (const s of securities.values()) {
    let left = held(s) ?? ZERO;
    for (const t of past) {
      if (t.event === 'sale' && t.input_security_id === s.id && t.shares)
        left = sub(left, readDecimal(t.shares)!);
    }
    remaining.set(s.id, left);
  }
  return { gone, remaining };
}
