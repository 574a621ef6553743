import { z } from 'zod';
import {
  add,
  CONVERTED_SCALE,
  type Decimal,
  div,
  mul,
  neg,
  readDecimal,
  round,
  sign,
  sub,
  toNumber,
  toText,
  ZERO,
} from '../core/decimal.ts';
import { xirr } from '../core/xirr.ts';
import type {
  FairValueOverride,
  FinancingRecord,
  SecurityRecord,
  ShareClassRecord,
  StoredMoney,
  TransactionRecord,
} from '../db/repos/cap-table.ts';
import { type DatedMoney, type RateTable, rateTable } from '../services/rates.ts';
import type { ReadContext } from './context.ts';

// Fund returns from the cap table. Every flow is converted into the firm's currency at its own date;
// the fair value is a final flow at the as-of date. Sums are exact decimals; only the IRR is a float.

export const METHOD =
  'Investments count at issue date, proceeds at sale date; fair value is the latest override on or before ' +
  'as_of_date, else shares × latest price (convertibles and tokens at cost, unexercised warrants 0). IRR is ' +
  'the XIRR of cash_flows; ratios and IRR are fractions (0.25 = 25 %).';

export const CashFlow = z.object({
  date: z.string().describe('YYYY-MM-DD.'),
  kind: z
    .enum(['investment', 'proceeds', 'fair_value'])
    .describe('investment (negative), proceeds from a sale, or fair_value held at as_of_date.'),
  amount: z.string().describe("Signed amount in the firm's currency, exact decimal string."),
  value: z.string().describe('The amount as recorded, in currency (unsigned).'),
  currency: z.string().describe('Currency the amount was recorded in.'),
  fx_rate: z
    .number()
    .describe("Rate into the firm's currency: the latest on or before fx_date (1 if the same)."),
  fx_date: z.string().describe('Date the rate applies on: the flow date.'),
  company_id: z.string(),
  fund_id: z.string(),
  security_id: z.string().nullable().describe('Security the flow comes from; null for an override.'),
});
export type CashFlow = z.infer<typeof CashFlow>;

export const Returns = {
  currency: z.string().describe("The firm's currency: every amount below is in it."),
  investment_amount: z
    .string()
    .describe('Paid-in capital: the sum of investment flows, as a positive amount.'),
  realized_value: z.string().describe('Sum of sale proceeds up to as_of_date.'),
  fair_value: z.string().describe('Value still held at as_of_date (NAV).'),
  moic: z
    .string()
    .nullable()
    .describe('(realized_value + fair_value) / investment_amount; null with nothing invested.'),
  irr: z.number().nullable().describe('Gross IRR as a fraction (XIRR of cash_flows); null with irr_note.'),
  irr_note: z.string().nullable().describe('Why irr is null, or null.'),
  notes: z.array(z.string()).describe('Amounts left out (no exchange rate known) and other caveats.'),
  cash_flows: z.array(CashFlow).describe('Every dated flow behind the figures, the fair value last.'),
};

/** One fund's position in one company at the as-of date. */
export interface Position {
  companyId: string;
  companyName: string;
  fundId: string;
  fundName: string;
  flows: CashFlow[];
  invested: Decimal;
  realized: Decimal;
  fairValue: Decimal;
  shares: Decimal;
  notes: string[];
}

export interface CompanyFacts {
  fullyDilutedShares: string | null;
  preMoney: string | null;
  postMoney: string | null;
  latestPrice: string | null;
}

export interface ReturnsData {
  asOf: string;
  currency: string;
  positions: Position[];
  facts: Map<string, CompanyFacts>;
}

const num = (v: unknown): Decimal | null =>
  typeof v === 'string' || typeof v === 'number' ? readDecimal(String(v)) : null;

function detailMoney(v: unknown): StoredMoney | null {
  if (!v || typeof v !== 'object') return null;
  const m = v as Record<string, unknown>;
  if (m.value === null || m.value === undefined || typeof m.currency !== 'string') return null;
  return {
    value: String(m.value),
    currency: m.currency,
    fx_rate: typeof m.fx_rate === 'string' ? m.fx_rate : null,
    is_custom_rate: m.is_custom_rate === true,
  };
}

/** The money a security cost at issue; warrants cost nothing until exercised. */
function costOf(s: SecurityRecord): StoredMoney | null {
  if (s.type === 'warrant' || s.type === 'token_warrant') return null;
  return detailMoney(
    s.type === 'token_convertible' ? s.details.purchase_amount : s.details.investment_amount,
  );
}

const fmt = (d: Decimal): string => toText(d);

/** Every amount the returns convert, with the date of its rate: flows at their own date, values at `asOf`. */
function amountsToConvert(
  securities: readonly SecurityRecord[],
  past: readonly TransactionRecord[],
  prices: Map<string, StoredMoney>,
  overrides: readonly FairValueOverride[],
  financings: readonly FinancingRecord[],
  asOf: string,
): DatedMoney[] {
  const amounts: DatedMoney[] = [];
  for (const s of securities) {
    const cost = costOf(s);
    if (cost) amounts.push({ money: cost, date: s.issue_date });
  }
  for (const t of past) {
    amounts.push({ money: t.investment_amount, date: t.date }, { money: t.proceeds, date: t.date });
  }
  for (const p of prices.values()) amounts.push({ money: p, date: asOf });
  for (const o of overrides) amounts.push({ money: o.fair_value, date: asOf });
  for (const f of financings)
    amounts.push({ money: f.pre_money, date: asOf }, { money: f.round_size, date: asOf });
  for (const s of securities) {
    if (s.type === 'public_equity') {
      const p = detailMoney(s.details.price_per_share);
      if (p) amounts.push({ money: p, date: asOf });
    }
  }
  return amounts;
}

/** The (company, fund) positions being built, each flow converted into the firm's currency as it is added. */
class PositionBook {
  readonly positions = new Map<string, Position>();
  private readonly fx: RateTable;

  constructor(fx: RateTable) {
    this.fx = fx;
  }

  /** The position a security belongs to, opened at its first security. */
  of(s: SecurityRecord): Position {
    const key = `${s.company_id}\u0000${s.fund_id}`;
    let p = this.positions.get(key);
    if (!p) {
      p = {
        companyId: s.company_id,
        companyName: s.company_name,
        fundId: s.fund_id,
        fundName: s.fund_name,
        flows: [],
        invested: ZERO,
        realized: ZERO,
        fairValue: ZERO,
        shares: ZERO,
        notes: [],
      };
      this.positions.set(key, p);
    }
    return p;
  }

  /** Adds a dated flow to the position and returns its converted amount; null (and a note) with no rate. */
  flow(
    p: Position,
    kind: CashFlow['kind'],
    money: StoredMoney,
    date: string,
    securityId: string | null,
  ): Decimal | null {
    const { fx } = this;
    const converted = fx.convertedValue(money, date);
    const value = money.value === null ? null : readDecimal(money.value);
    if (converted === null || value === null || money.currency === null) {
      p.notes.push(
        `${kind} of ${money.value ?? '?'} ${money.currency ?? ''} on ${date}${securityId ? ` (security ${securityId})` : ''} left out: no exchange rate into ${fx.preferred} on or before that date`,
      );
      return null;
    }
    const amount = readDecimal(converted)!;
    p.flows.push({
      date,
      kind,
      amount: fmt(kind === 'investment' ? neg(amount) : amount),
      value: money.value!,
      currency: money.currency,
      fx_rate: Number(fx.rate(money, date).rate),
      fx_date: date,
      company_id: p.companyId,
      fund_id: p.fundId,
      security_id: securityId,
    });
    return amount;
  }
}

/** A security still held at the as-of date, with the shares left of it. */
interface Held {
  p: Position;
  s: SecurityRecord;
  shares: Decimal;
}

/**
 * Books each security's investment, exercises and sale proceeds up to the as-of date, and returns the
 * securities still held: not converted, exercised or sold out.
 */
function bookFlows(
  book: PositionBook,
  securities: readonly SecurityRecord[],
  past: readonly TransactionRecord[],
): Held[] {
  const byInput = new Map<string, TransactionRecord[]>();
  const outputs = new Set<string>();
  for (const t of past) {
    if (t.input_security_id)
      byInput.set(t.input_security_id, [...(byInput.get(t.input_security_id) ?? []), t]);
    if (t.output_security_id && (t.event === 'conversion' || t.event === 'exercise'))
      outputs.add(t.output_security_id);
  }
  const held: Held[] = [];
  for (const s of securities) {
    const p = book.of(s);
    const cost = costOf(s);
    // A conversion's or exercise's output was paid for by its input (and the exercise price).
    if (cost && !outputs.has(s.id)) {
      const a = book.flow(p, 'investment', cost, s.issue_date, s.id);
      if (a) p.invested = add(p.invested, a);
    }
    let shares = num(s.details.shares) ?? num(s.details.quantity) ?? ZERO;
    let gone = false;
    for (const t of byInput.get(s.id) ?? []) {
      if (t.event === 'exercise') {
        gone = true;
        const a = book.flow(p, 'investment', t.investment_amount, t.date, s.id);
        if (a) p.invested = add(p.invested, a);
      } else if (t.event === 'conversion') {
        gone = true;
      } else if (t.event === 'sale') {
        const sold = num(t.shares);
        shares = sold ? sub(shares, sold) : ZERO;
        if (sign(shares) <= 0) gone = true;
        if (t.proceeds.value !== null) {
          const a = book.flow(p, 'proceeds', t.proceeds, t.date, s.id);
          if (a) p.realized = add(p.realized, a);
        }
      }
    }
    if (!gone) held.push({ p, s, shares });
  }
  return held;
}

/** Adds what each held security is worth at the as-of date: shares × price, convertibles and tokens at cost. */
function valueHeld(
  held: readonly Held[],
  prices: Map<string, StoredMoney>,
  fx: RateTable,
  asOf: string,
): void {
  for (const { p, s, shares } of held) {
    if (s.type === 'certificate' || s.type === 'public_equity') {
      p.shares = add(p.shares, shares);
      const price =
        prices.get(s.company_id) ??
        (s.type === 'public_equity' ? (detailMoney(s.details.price_per_share) ?? undefined) : undefined);
      const priced = price ? fx.convertedValue(price, asOf) : null;
      if (priced === null) {
        p.notes.push(
          `security ${s.id}: no price per share on or before ${asOf} in ${fx.preferred}; valued at 0`,
        );
        continue;
      }
      p.fairValue = add(p.fairValue, mul(shares, readDecimal(priced)!));
    } else if (s.type === 'convertible' || s.type === 'token_convertible' || s.type === 'token_investment') {
      const cost = costOf(s);
      const atCost = cost ? fx.convertedValue(cost, s.issue_date) : null;
      if (atCost !== null) p.fairValue = add(p.fairValue, readDecimal(atCost)!);
    }
  }
}

/**
 * Settles each position's fair value (the latest override on or before the as-of date wins over
 * shares × price) and adds it as the final flow. Overrides of positions with no security on or
 * before the as-of date are ignored: nothing was invested.
 */
function closePositions(
  positions: Iterable<Position>,
  overrides: readonly FairValueOverride[],
  fx: RateTable,
  asOf: string,
): void {
  const latestOverride = new Map<string, FairValueOverride>();
  for (const o of overrides) latestOverride.set(`${o.company_id}\u0000${o.fund_id}`, o);
  for (const p of positions) {
    const o = latestOverride.get(`${p.companyId}\u0000${p.fundId}`);
    if (o) {
      const v = fx.convertedValue(o.fair_value, asOf);
      if (v !== null) p.fairValue = readDecimal(v)!;
      else
        p.notes.push(`fair-value override of ${o.date} has no exchange rate on ${asOf}; shares × price used`);
    }
    p.fairValue = roundTo(p.fairValue);
    if (sign(p.fairValue) !== 0) {
      p.flows.push({
        date: asOf,
        kind: 'fair_value',
        amount: fmt(p.fairValue),
        value: fmt(p.fairValue),
        currency: fx.preferred,
        fx_rate: 1,
        fx_date: asOf,
        company_id: p.companyId,
        fund_id: p.fundId,
        security_id: null,
      });
    }
  }
}

/** Loads the cap table behind the returns and computes every visible (company, fund) position. */
export async function loadReturns(
  ctx: ReadContext,
  filter: { companyIds?: string[]; fundIds?: string[]; asOf: string },
): Promise<ReturnsData> {
  const scope = ctx.principal.scope;
  const cap = ctx.repos.capTable;
  const { asOf, companyIds } = filter;
  const [allSecurities, transactions, shareClasses, financings, overrides] = await Promise.all([
    cap.securities(scope, { companyIds }),
    cap.transactions(scope, { companyIds }),
    cap.shareClasses(scope, { companyIds }),
    cap.financings(scope, { companyIds }),
    cap.fairValueOverrides(scope, { companyIds, onOrBefore: asOf }),
  ]);
  const fundOk = (id: string) => !filter.fundIds || filter.fundIds.includes(id);
  const securities = allSecurities.filter((s) => fundOk(s.fund_id) && s.issue_date <= asOf);
  const past = transactions.filter((t) => t.date <= asOf);
  const prices = latestPrices(shareClasses, asOf);
  const fx = await rateTable(ctx, amountsToConvert(securities, past, prices, overrides, financings, asOf));

  const book = new PositionBook(fx);
  valueHeld(bookFlows(book, securities, past), prices, fx, asOf);
  closePositions(book.positions.values(), overrides, fx, asOf);
  return {
    asOf,
    currency: fx.preferred,
    positions: [...book.positions.values()].sort(
      (a, b) => a.companyName.localeCompare(b.companyName) || a.fundName.localeCompare(b.fundName),
    ),
    facts: companyFacts(financings, prices, fx, asOf),
  };
}

function roundTo(d: Decimal): Decimal {
  return d.scale > CONVERTED_SCALE ? round(d, CONVERTED_SCALE) : d;
}

/** Each company's latest price per share on or before the date (by its round's closing date). */
function latestPrices(classes: readonly ShareClassRecord[], asOf: string): Map<string, StoredMoney> {
  const out = new Map<string, { date: string; price: StoredMoney }>();
  for (const c of classes) {
    if (c.closing_date > asOf || c.price_per_share.value === null || c.include_in_fair_value === false)
      continue;
    const seen = out.get(c.company_id);
    if (!seen || c.closing_date >= seen.date)
      out.set(c.company_id, { date: c.closing_date, price: c.price_per_share });
  }
  return new Map([...out].map(([k, v]) => [k, v.price]));
}

function companyFacts(
  financings: readonly FinancingRecord[],
  prices: Map<string, StoredMoney>,
  fx: RateTable,
  asOf: string,
): Map<string, CompanyFacts> {
  const out = new Map<string, CompanyFacts>();
  const get = (id: string) => {
    let f = out.get(id);
    if (!f) {
      f = { fullyDilutedShares: null, preMoney: null, postMoney: null, latestPrice: null };
      out.set(id, f);
    }
    return f;
  };
  // Financings come by closing date, so the last one seen wins.
  const sorted = [...financings].sort((a, b) => a.closing_date.localeCompare(b.closing_date));
  for (const r of sorted) {
    if (r.closing_date > asOf) continue;
    const f = get(r.company_id);
    if (r.fully_diluted_shares) f.fullyDilutedShares = r.fully_diluted_shares;
    const pre = fx.convertedValue(r.pre_money, asOf);
    if (pre !== null) {
      f.preMoney = pre;
      const size = fx.convertedValue(r.round_size, asOf);
      f.postMoney = size === null ? null : toText(add(readDecimal(pre)!, readDecimal(size)!));
    }
  }
  for (const [id, price] of prices) get(id).latestPrice = fx.convertedValue(price, asOf);
  return out;
}

/** The figures of a set of positions: sums, multiple and IRR over their merged flows. */
export function summarise(positions: readonly Position[], currency: string) {
  let invested = ZERO;
  let realized = ZERO;
  let fairValue = ZERO;
  const flows: CashFlow[] = [];
  const notes: string[] = [];
  for (const p of positions) {
    invested = add(invested, p.invested);
    realized = add(realized, p.realized);
    fairValue = add(fairValue, p.fairValue);
    flows.push(...p.flows);
    notes.push(...p.notes);
  }
  flows.sort((a, b) => a.date.localeCompare(b.date) || kindOrder[a.kind] - kindOrder[b.kind]);
  const ratio = (n: Decimal) => (sign(invested) === 0 ? null : toText(div(n, invested, 6)));
  const irr = xirr(flows.map((f) => ({ amount: toNumber(readDecimal(f.amount)!), date: f.date })));
  return {
    currency,
    investment_amount: toText(invested),
    realized_value: toText(realized),
    fair_value: toText(fairValue),
    moic: ratio(add(realized, fairValue)),
    dpi: ratio(realized),
    rvpi: ratio(fairValue),
    irr: irr.rate,
    irr_note: irr.reason,
    notes,
    cash_flows: flows,
  };
}

const kindOrder: Record<CashFlow['kind'], number> = { investment: 0, proceeds: 1, fair_value: 2 };

/** Shares held by the positions, exact. */
export function totalShares(positions: readonly Position[]): string {
  return toText(positions.reduce((t, p) => add(t, p.shares), ZERO));
}

/** shares / fully diluted shares as a fraction; null when either is unknown or the total is 0. */
export function ownership(shares: string, fullyDiluted: string | null): number | null {
  const fd = fullyDiluted === null ? null : readDecimal(fullyDiluted);
  if (!fd || sign(fd) <= 0) return null;
  return toNumber(div(readDecimal(shares)!, fd, 10));
}
