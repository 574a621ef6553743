// Fund returns of `npm run bench:answers` recomputed from the cap-table rows, apart from the service's
// analytics: each (company, fund) position's paid-in capital, proceeds and fair value at a date, and from
// them MOIC, ownership, TVPI and DPI as get_investment_metrics and get_fund_performance define them.
import type { Knex } from 'knex';
import * as D from '../core/decimal.ts';
import { firmTables, type Rates } from './answers-data.ts';

/** A money amount as the cap table stores it. */
export interface Money {
  value: string | null;
  currency: string | null;
  fx_rate: string | null;
  is_custom_rate: unknown;
}

/**
 * In the firm's currency, to at most 6 places: at the amount's custom rate, 1 in the firm's currency, else
 * the table's latest rate on or before `date`, else the rate stored with it; null without one.
 */
export function capToFirm(rates: Rates, m: Money | null, date: string): string | null {
  if (!m || m.value === null || m.currency === null) return null;
  const rate =
    m.is_custom_rate && m.fx_rate
      ? m.fx_rate
      : m.currency === rates.preferred
        ? '1'
        : (rates.rateOn(m.currency, date) ?? m.fx_rate);
  if (rate === null) return null;
  return rate === '1' ? m.value : D.convertDecimal(m.value, rate);
}

/** The four columns `<prefix>_value` … of a row as one amount. */
export const columnsMoney = (row: Record<string, unknown>, prefix: string): Money => ({
  value: (row[`${prefix}_value`] as string | null) ?? null,
  currency: (row[`${prefix}_currency`] as string | null) ?? null,
  fx_rate: (row[`${prefix}_fx_rate`] as string | null) ?? null,
  is_custom_rate: row[`${prefix}_is_custom_rate`],
});

function detailsMoney(v: unknown): Money | null {
  const m = v as Record<string, unknown> | null | undefined;
  if (!m || m.value === null || m.value === undefined || typeof m.currency !== 'string') return null;
  const fx = typeof m.fx_rate === 'string' ? m.fx_rate : null;
  return {
    value: String(m.value),
    currency: m.currency,
    fx_rate: fx,
    is_custom_rate: m.is_custom_rate === true,
  };
}

const decimal = (v: unknown) =>
  typeof v === 'string' || typeof v === 'number' ? D.readDecimal(String(v)) : null;

export interface Position {
  companyId: string;
  companyName: string;
  fundId: string;
  invested: D.Decimal;
  realized: D.Decimal;
  fair: D.Decimal;
  /** Shares of certificates and public equity still held. */
  shares: D.Decimal;
}

interface Security {
  id: string;
  company_id: string;
  company_name: string;
  fund_id: string;
  type: string;
  issue_date: string;
  details: Record<string, unknown>;
}

/** What a security cost: warrants nothing, a token pre-sale its purchase amount, the rest their investment. */
function costOf(s: Security): Money | null {
  if (s.type === 'warrant' || s.type === 'token_warrant') return null;
  return detailsMoney(
    s.type === 'token_convertible' ? s.details.purchase_amount : s.details.investment_amount,
  );
}

/** Every (company, fund) position at `asOf`, from the securities, transactions, round prices and overrides. */
export async function positionsAt(db: Knex, firmId: string, rates: Rates, asOf: string): Promise<Position[]> {
  const t = firmTables(db, firmId);
  const securities = (
    (await t('securities')
      .join('companies', 'companies.id', 'securities.company_id')
      .where('securities.issue_date', '<=', asOf)
      .orderBy(['securities.issue_date', 'securities.id'])
      .select('securities.*', 'companies.name as company_name')) as (Security & { details: string })[]
  ).map((s) => ({ ...s, details: JSON.parse(s.details) as Record<string, unknown> }));
  const txs = (await t('transactions')
    .where('date', '<=', asOf)
    .orderBy(['date', 'id'])
    .select('*')) as Record<string, unknown>[];
  const outputs = new Set(
    txs.filter((x) => x.event === 'conversion' || x.event === 'exercise').map((x) => x.output_security_id),
  );
  const price = await latestPrices(t, asOf);
  const book = new Map<string, Position>();
  for (const s of securities) {
    const key = `${s.company_id}|${s.fund_id}`;
    const p = book.get(key) ?? {
      companyId: s.company_id,
      companyName: s.company_name,
      fundId: s.fund_id,
      invested: D.ZERO,
      realized: D.ZERO,
      fair: D.ZERO,
      shares: D.ZERO,
    };
    book.set(key, p);
    const add = (field: 'invested' | 'realized', m: Money | null, date: string) => {
      const v = capToFirm(rates, m, date);
      if (v !== null) p[field] = D.add(p[field], D.readDecimal(v)!);
    };
    if (!outputs.has(s.id)) add('invested', costOf(s), s.issue_date);
    let shares = decimal(s.details.shares) ?? decimal(s.details.quantity) ?? D.ZERO;
    let held = true;
    for (const x of txs.filter((x) => x.input_security_id === s.id)) {
      if (x.event === 'exercise') add('invested', columnsMoney(x, 'investment_amount'), String(x.date));
      if (x.event === 'exercise' || x.event === 'conversion') held = false;
      if (x.event !== 'sale') continue;
      const sold = decimal(x.shares);
      shares = sold ? D.sub(shares, sold) : D.ZERO;
      if (D.sign(shares) <= 0) held = false;
      add('realized', columnsMoney(x, 'proceeds'), String(x.date));
    }
    if (held) valueHeld(p, s, shares, price.get(s.company_id), rates, asOf);
  }
  await applyOverrides(t, [...book.values()], rates, asOf);
  return [...book.values()];
}

/** Shares × the latest round price (public equity: its own price), convertibles and tokens at cost. */
function valueHeld(
  p: Position,
  s: Security,
  shares: D.Decimal,
  price: Money | undefined,
  rates: Rates,
  asOf: string,
) {
  if (s.type === 'certificate' || s.type === 'public_equity') {
    p.shares = D.add(p.shares, shares);
    const own = s.type === 'public_equity' ? detailsMoney(s.details.price_per_share) : null;
    const priced = capToFirm(rates, price ?? own, asOf);
    if (priced !== null) p.fair = D.add(p.fair, D.mul(shares, D.readDecimal(priced)!));
  } else if (['convertible', 'token_convertible', 'token_investment'].includes(s.type)) {
    const atCost = capToFirm(rates, costOf(s), s.issue_date);
    if (atCost !== null) p.fair = D.add(p.fair, D.readDecimal(atCost)!);
  }
}

/** Each company's price per share of its latest round closed by `asOf` whose class counts in fair value. */
async function latestPrices(t: ReturnType<typeof firmTables>, asOf: string): Promise<Map<string, Money>> {
  const classes = (await t('share_classes')
    .join('financings', 'financings.id', 'share_classes.financing_id')
    .where('financings.closing_date', '<=', asOf)
    .whereNotNull('share_classes.price_per_share_value')
    .orderBy(['financings.closing_date', 'share_classes.id'])
    .select('share_classes.*', 'financings.closing_date')) as Record<string, unknown>[];
  const out = new Map<string, Money>();
  for (const c of classes) {
    const counted = c.include_in_fair_value === null || Boolean(c.include_in_fair_value);
    if (counted) out.set(String(c.company_id), columnsMoney(c, 'price_per_share'));
  }
  return out;
}

/** The latest fair-value override on or before `asOf` replaces a position's value; then 6 places at most. */
async function applyOverrides(
  t: ReturnType<typeof firmTables>,
  positions: Position[],
  rates: Rates,
  asOf: string,
) {
  const overrides = (await t('fair_value_overrides')
    .where('date', '<=', asOf)
    .orderBy(['date', 'created_at'])
    .select('*')) as Record<string, unknown>[];
  const latest = new Map(overrides.map((o) => [`${o.company_id}|${o.fund_id}`, o]));
  for (const p of positions) {
    const o = latest.get(`${p.companyId}|${p.fundId}`);
    const v = o ? capToFirm(rates, columnsMoney(o, 'fair_value'), asOf) : null;
    if (v !== null) p.fair = D.readDecimal(v)!;
    if (p.fair.scale > 6) p.fair = D.round(p.fair, 6);
  }
}

/** Paid-in, realized and fair value summed over positions, and (realized + fair) / paid-in and realized / paid-in to 4 places. */
export function returnsOf(positions: readonly Position[]) {
  const sum = (f: (p: Position) => D.Decimal) => positions.reduce((a, p) => D.add(a, f(p)), D.ZERO);
  const invested = sum((p) => p.invested);
  const realized = sum((p) => p.realized);
  const fair = sum((p) => p.fair);
  const ratio = (n: D.Decimal) => (D.sign(invested) === 0 ? null : D.toFixed(D.div(n, invested, 6), 4));
  return { fair: D.toText(fair), multiple: ratio(D.add(realized, fair)), dpi: ratio(realized) };
}

/**
 * A company's ownership as a fraction to 6 places: each fund's latest ownership override on or before `asOf`,
 * else its shares over the fully diluted shares of the company's latest round closed by then.
 */
export async function ownershipOf(
  db: Knex,
  firmId: string,
  positions: readonly Position[],
  asOf: string,
): Promise<number | null> {
  const t = firmTables(db, firmId);
  const companyId = positions[0]!.companyId;
  const overrides = (await t('ownership_overrides')
    .where({ company_id: companyId })
    .where('date', '<=', asOf)
    .orderBy(['date', 'created_at'])
    .select('fund_id', 'ownership_percentage')) as { fund_id: string; ownership_percentage: string }[];
  const stated = new Map(overrides.map((o) => [o.fund_id, o.ownership_percentage]));
  const round = await t('financings')
    .where({ company_id: companyId })
    .where('closing_date', '<=', asOf)
    .whereNotNull('fully_diluted_shares')
    .orderBy('closing_date', 'desc')
    .first('fully_diluted_shares');
  let total = 0;
  let shares = D.ZERO;
  for (const p of positions) {
    if (stated.has(p.fundId)) total += Number(stated.get(p.fundId));
    else shares = D.add(shares, p.shares);
  }
  if (positions.every((p) => stated.has(p.fundId))) return Number(total.toFixed(6));
  const fd = round ? D.readDecimal(String(round.fully_diluted_shares)) : null;
  if (!fd || D.sign(fd) <= 0) return null;
  return Number((total + D.toNumber(D.div(shares, fd, 10))).toFixed(6));
}
