/**
 * Cap tables: financings with their co-investors and pari-passu links, share classes, the funds'
 * securities (every kind: certificate, convertible, warrant, public_equity, token_convertible,
 * token_investment, token_warrant) and transactions (conversion, exercise, sale). The rounds come
 * from the operating model, so their dates and sizes match the cash jumps in the metrics.
 *
 * The holdings then give the investor-side metrics: investment_amount, fair_value, moic and
 * ownership at each quarter end, pre/post-money valuations at each priced round, and
 * realized_value at an exit.
 */
import type { Round } from './demo-model.ts';
import type { Participation, Seniority } from './demo-world.ts';
import { addMetric, type CompanyCtx, type FirmCtx, moneyJson, type Row, standardCategory } from './rows.ts';
import {
  addDays,
  addMonths,
  DEMO_TODAY,
  fmtCents,
  fmtFixed,
  fmtFraction,
  instant,
  isQuarterEnd,
  mulRate,
  nice,
} from './values.ts';

/** Shares outstanding (founders and option pool) before the first priced round. */
const FOUNDING_SHARES = 10_000_000;

type SecurityKind =
  | 'certificate'
  | 'convertible'
  | 'warrant'
  | 'public_equity'
  | 'token_convertible'
  | 'token_investment'
  | 'token_warrant';

/** A fund's position in one security, for valuing the holdings at a date. */
interface Position {
  securityId: string;
  kind: SecurityKind;
  from: string;
  /** Converted, exercised or sold on this date. */
  until: string | null;
  /** Cash paid when the position was bought (0 for conversion and exercise outputs' carried basis). */
  purchase: number;
  /** Basis carried into valuations of convertibles. */
  cost: number;
  shares: number;
  /** Warrants: exercise price per share or token, in 1/10000 units. */
  strikeE4?: number;
  proceeds?: number;
}

interface PricePoint {
  date: string;
  /** Price per share in 1/10000 of a currency unit. */
  priceE4: number;
  /** Fully diluted shares after the event. */
  fds: number;
}

/** Everything the investor metrics need about a company's cap table. */
export interface CapTable {
  positions: Position[];
  prices: PricePoint[];
  /** Month-end market prices after a listing, by 'YYYY-MM'. */
  market: Map<string, number>;
  /** Token prices by 'YYYY-MM', after the token generation event. */
  tokens: Map<string, number>;
  exitDate: string | null;
}

const fmtE4 = (e4: number) => `${Math.floor(e4 / 10_000)}.${String(e4 % 10_000).padStart(4, '0')}`;
/** Cents for `units` shares at a price in 1/10000 units. */
const amountAt = (units: number, priceE4: number) => Math.round((units * priceE4) / 100);

export function buildCapTable(firm: FirmCtx, company: CompanyCtx): CapTable {
  const { rows, ids } = firm;
  const spec = company.spec;
  const currency = spec.currency;
  const rng = company.rng.fork('captable');
  const ourName = firm.spec.name;
  const positions: Position[] = [];
  const prices: PricePoint[] = [];
  const market = new Map<string, number>();
  const tokens = new Map<string, number>();
  const byName = new Map<string, Round>();
  const fundsUsed = new Set<string>();

  let fds = FOUNDING_SHARES;
  let pricedCount = 0;
  const pending: {
    position: Position;
    row: Row;
    roundSize: number;
    discount: number;
    capE4: number | null;
    accruedRate: number;
  }[] = [];
  let pendingToken: { position: Position; amount: number } | null = null;

  const fundFor = (date: string) => {
    const key = firm.spec.fundFor(date, company.firstDate);
    const fund = firm.funds.get(key)!;
    fundsUsed.add(fund.id);
    return fund.id;
  };
  const money = (cents: number, date: string) => moneyJson(firm, cents, currency, date);
  const priceMoney = (e4: number, date: string) => ({ ...money(0, date), value: fmtE4(e4) });

  const addSecurity = (
    kind: SecurityKind,
    date: string,
    fundId: string,
    financingId: string | null,
    shareClassId: string | null,
    details: Record<string, unknown>,
  ): Row =>
    rows.add('securities', {
      id: ids.next('sec'),
      firm_id: firm.id,
      company_id: company.id,
      fund_id: fundId,
      financing_id: financingId,
      share_class_id: shareClassId,
      type: kind,
      issue_date: date,
      details: JSON.stringify(details),
      created_at: instant(addDays(date, 3), 11),
    });

  const addTransaction = (
    event: 'exercise' | 'conversion' | 'sale',
    date: string,
    input: string,
    output: string | null,
    shares: number | null,
    invested: number,
    proceeds: number | null,
  ) => {
    const rate = firm.fx.rate(currency, firm.spec.currency, date);
    rows.add('transactions', {
      id: ids.next('txn'),
      firm_id: firm.id,
      company_id: company.id,
      input_security_id: input,
      output_security_id: output,
      date,
      event,
      shares: shares === null ? null : String(shares),
      investment_amount_value: fmtCents(invested),
      investment_amount_currency: currency,
      investment_amount_fx_rate: rate,
      investment_amount_is_custom_rate: false,
      proceeds_value: proceeds === null ? null : fmtCents(proceeds),
      proceeds_currency: proceeds === null ? null : currency,
      proceeds_fx_rate: proceeds === null ? null : rate,
      proceeds_is_custom_rate: proceeds === null ? null : false,
      created_at: instant(addDays(date, 2), 15),
    });
  };

  const addShareClass = (
    round: Round,
    name: string,
    purchaseType: 'primary' | 'secondary',
    type: 'common' | 'preferred',
    priceE4: number,
  ): string => {
    const id = ids.next('shc');
    rows.add('share_classes', {
      id,
      firm_id: firm.id,
      company_id: company.id,
      financing_id: round.id,
      purchase_type: purchaseType,
      type,
      name,
      price_per_share_value: fmtE4(priceE4),
      price_per_share_currency: currency,
      price_per_share_fx_rate: firm.fx.rate(currency, firm.spec.currency, round.date),
      price_per_share_is_custom_rate: false,
      include_in_fair_value: purchaseType === 'primary',
      created_at: instant(addDays(round.date, 2), 10, 30),
    });
    return id;
  };

  /** A certificate bought for about `target` cents: whole shares at the class price. */
  const buyCertificate = (
    round: Round,
    classId: string,
    className: string,
    priceE4: number,
    target: number,
  ): Position => {
    const shares = Math.floor((target * 100) / priceE4);
    const invested = amountAt(shares, priceE4);
    const row = addSecurity('certificate', round.date, fundFor(round.date), round.id, classId, {
      investment_amount: money(invested, round.date),
      shares: String(shares),
      share_class_name: className,
    });
    const position: Position = {
      securityId: row.id as string,
      kind: 'certificate',
      from: round.date,
      until: null,
      purchase: invested,
      cost: invested,
      shares,
    };
    positions.push(position);
    return position;
  };

  for (const round of company.model.rounds) {
    byName.set(round.name, round);
    const plan = round.plan;
    const isPriced = round.kind === 'priced';
    const isEquity = isPriced || round.kind === 'ipo';
    const fdsPre = fds;
    const priceE4 = isEquity ? Math.round((round.preMoney! * 100) / fdsPre) : 0;

    // Convertibles outstanding convert into this priced round.
    let conversionShares = 0;
    const conversions: { position: Position; shares: number; accrued: number }[] = [];
    if (isPriced) {
      for (const p of pending.splice(0)) {
        const discounted = Math.round(priceE4 * (1 - p.discount));
        const convPrice =
          p.capE4 === null ? discounted : Math.min(discounted, Math.round((p.capE4 * 100) / fdsPre));
        const days = (Date.parse(round.date) - Date.parse(p.position.from)) / 86_400_000;
        const accrued = Math.round(p.position.cost * p.accruedRate * (days / 365));
        const roundAccrued = Math.round(p.roundSize * p.accruedRate * (days / 365));
        conversionShares += Math.floor(((p.roundSize + roundAccrued) * 100) / convPrice);
        conversions.push({
          position: p.position,
          shares: Math.floor(((p.position.cost + accrued) * 100) / convPrice),
          accrued,
        });
        if (p.accruedRate > 0) {
          const details = JSON.parse(p.row.details as string) as Record<string, unknown>;
          details.accrued_interest = fmtCents(accrued);
          p.row.details = JSON.stringify(details);
        }
      }
    }
    const newShares = isEquity ? Math.round((round.size * 100) / priceE4) : 0;
    const pool = isPriced && pricedCount > 0 ? Math.round((fdsPre + newShares) * 0.04) : 0;
    if (isEquity) {
      fds = fdsPre + newShares + conversionShares + pool;
      prices.push({ date: round.date, priceE4, fds });
    }

    // The financing row.
    const rate = firm.fx.rate(currency, firm.spec.currency, round.date);
    const customRate = plan.name === 'Series B' && spec.currency === 'INR';
    const sizeRate = customRate ? (Number(rate) * 1.004).toFixed(6) : rate;
    const seniority: Seniority | null = isPriced
      ? (plan.seniority ??
        (pricedCount === 0 ? 'SENIOR_TO_ALL' : rng.pick(['SENIOR_TO_ALL', 'PARI_PASSU_ALL_PREVIOUS'])))
      : null;
    const participation: Participation | null = isPriced
      ? (plan.participation ?? (rng.chance(0.85) ? 'NON_PARTICIPATING' : 'FULLY_PARTICIPATING'))
      : null;
    rows.add('financings', {
      id: round.id,
      firm_id: firm.id,
      company_id: company.id,
      name: round.name,
      closing_date: round.date,
      pre_money_value: round.preMoney === null ? null : fmtCents(round.preMoney),
      pre_money_currency: round.preMoney === null ? null : currency,
      pre_money_fx_rate: round.preMoney === null ? null : rate,
      pre_money_is_custom_rate: round.preMoney === null ? null : false,
      round_size_value: fmtCents(round.size),
      round_size_currency: currency,
      round_size_fx_rate: sizeRate,
      round_size_is_custom_rate: customRate,
      round_size_converted_value: mulRate(round.size, sizeRate),
      fully_diluted_shares: isEquity ? String(fds) : null,
      is_crypto: round.kind.startsWith('token'),
      liquidation_multiple: isPriced ? (plan.liquidationMultiple ?? '1.00') : null,
      cap_multiple: participation === 'CAPPED_PARTICIPATING' ? (plan.capMultiple ?? '3.00') : null,
      seniority_position: seniority,
      participation_type: participation,
      created_at: instant(addDays(round.date, 2), 10),
    });

    // Co-investors: the firm itself when it led, otherwise another lead; a few others.
    const others = rng.sample(firm.spec.coInvestors, rng.int(1, 3));
    const investors = plan.lead ? [ourName, ...others] : others;
    investors.forEach((name, position) => {
      rows.add('financing_co_investors', {
        id: ids.next('coi'),
        financing_id: round.id,
        name,
        is_lead: position === 0,
        position,
      });
    });
    (plan.pariPassuWith ?? []).forEach((otherName, position) => {
      const other = byName.get(otherName);
      if (!other) throw new Error(`${spec.name}: pari passu round ${otherName} must come earlier`);
      rows.add('financing_pari_passu', { financing_id: round.id, other_financing_id: other.id, position });
    });

    // Share classes and the fund's securities.
    const share =
      round.kind === 'ipo'
        ? rng.between(0.01, 0.03)
        : plan.lead
          ? rng.between(0.35, 0.55)
          : rng.between(0.08, 0.2);
    // A fund writes checks of at most 8 % of its size.
    const fund = firm.spec.funds.find((f) => f.key === firm.spec.fundFor(round.date, company.firstDate))!;
    const maxCheck = (Number(fund.size) * 0.08) / Number(firm.fx.rate(currency, fund.currency, round.date));
    const target = nice(Math.min((round.size / 100) * share, maxCheck)) * 100;
    switch (round.kind) {
      case 'priced': {
        const className = `${round.name} Preferred`;
        const classId = addShareClass(round, className, 'primary', 'preferred', priceE4);
        const bought = buyCertificate(round, classId, className, priceE4, target);
        for (const c of conversions) {
          const out = addSecurity('certificate', round.date, fundFor(c.position.from), round.id, classId, {
            investment_amount: money(c.position.cost, round.date),
            shares: String(c.shares),
            share_class_name: className,
          });
          c.position.until = round.date;
          positions.push({
            securityId: out.id as string,
            kind: 'certificate',
            from: round.date,
            until: null,
            purchase: 0,
            cost: c.position.cost,
            shares: c.shares,
          });
          addTransaction(
            'conversion',
            round.date,
            c.position.securityId,
            out.id as string,
            c.shares,
            c.position.cost,
            null,
          );
        }
        if (plan.secondary) {
          const secondaryPrice = Math.round(priceE4 * 0.7);
          const secondaryName = 'Common (secondary)';
          const secondaryId = addShareClass(round, secondaryName, 'secondary', 'common', secondaryPrice);
          buyCertificate(
            round,
            secondaryId,
            secondaryName,
            secondaryPrice,
            nice((round.size / 100) * 0.03) * 100,
          );
        }
        if (plan.warrant) {
          const warrantShares = Math.round(bought.shares * 0.1);
          const fundId = fundFor(round.date);
          const warrant = addSecurity('warrant', round.date, fundId, round.id, null, {
            due_date: addMonths(round.date, 84),
            exercise_price: priceMoney(priceE4, round.date),
            shares: String(warrantShares),
            total_cost: fmtCents(amountAt(warrantShares, priceE4)),
          });
          const position: Position = {
            securityId: warrant.id as string,
            kind: 'warrant',
            from: round.date,
            until: null,
            purchase: 0,
            cost: 0,
            shares: warrantShares,
            strikeE4: priceE4,
          };
          positions.push(position);
          const exercisedAt = plan.warrant.exercisedAt;
          if (exercisedAt) {
            const cost = amountAt(warrantShares, priceE4);
            const out = addSecurity('certificate', exercisedAt, fundId, round.id, classId, {
              investment_amount: money(cost, exercisedAt),
              shares: String(warrantShares),
              share_class_name: className,
            });
            position.until = exercisedAt;
            positions.push({
              securityId: out.id as string,
              kind: 'certificate',
              from: exercisedAt,
              until: null,
              purchase: cost,
              cost,
              shares: warrantShares,
            });
            addTransaction(
              'exercise',
              exercisedAt,
              warrant.id as string,
              out.id as string,
              warrantShares,
              cost,
              null,
            );
          }
        }
        pricedCount++;
        break;
      }
      case 'safe':
      case 'note': {
        const isNote = round.kind === 'note';
        const cap = isNote ? null : nice((round.size / 100) * rng.between(6, 10)) * 100;
        const invested = isNote ? nice((round.size / 100) * 0.5) * 100 : target;
        const row = addSecurity('convertible', round.date, fundFor(round.date), round.id, null, {
          convertible_type: isNote ? 'convertible_note' : 'safe',
          discount: isNote ? '0.15' : '0.20',
          valuation_cap: cap === null ? null : money(cap, round.date),
          maturity_date: isNote ? addMonths(round.date, 18) : null,
          interest_rate: isNote ? '0.08' : null,
          days_convention: isNote ? 365 : null,
          investment_amount: money(invested, round.date),
          accrued_interest: isNote ? '0.00' : null,
        });
        const position: Position = {
          securityId: row.id as string,
          kind: 'convertible',
          from: round.date,
          until: null,
          purchase: invested,
          cost: invested,
          shares: 0,
        };
        positions.push(position);
        pending.push({
          position,
          row,
          roundSize: round.size,
          discount: isNote ? 0.15 : 0.2,
          capE4: cap,
          accruedRate: isNote ? 0.08 : 0,
        });
        break;
      }
      case 'ipo': {
        const className = 'Class A Common';
        addShareClass(round, className, 'primary', 'common', priceE4);
        const shares = Math.floor((target * 100) / priceE4);
        const invested = amountAt(shares, priceE4);
        const fundId = fundFor(round.date);
        const row = addSecurity('public_equity', round.date, fundId, null, null, {
          price_per_share: priceMoney(priceE4, round.date),
          shares: String(shares),
          investment_amount: money(invested, round.date),
        });
        // A listed stock: a monthly random walk from the offer price.
        let price = priceE4;
        for (let d = round.date; d.slice(0, 7) <= DEMO_TODAY.slice(0, 7); d = addMonths(d, 1)) {
          market.set(d.slice(0, 7), price);
          price = Math.max(1, Math.round(price * (1 + rng.normal(0.012, 0.08))));
        }
        // Part of the holding is sold after the lock-up.
        const saleDate = addMonths(round.date, 6);
        const sold = Math.round(shares * 0.4);
        const soldCost = Math.round((invested * sold) / shares);
        const proceeds = amountAt(sold, market.get(saleDate.slice(0, 7)) ?? priceE4);
        const id = row.id as string;
        positions.push(
          {
            securityId: id,
            kind: 'public_equity',
            from: round.date,
            until: null,
            purchase: invested - soldCost,
            cost: invested - soldCost,
            shares: shares - sold,
          },
          {
            securityId: id,
            kind: 'public_equity',
            from: round.date,
            until: saleDate,
            purchase: soldCost,
            cost: soldCost,
            shares: sold,
            proceeds,
          },
        );
        if (saleDate <= DEMO_TODAY) addTransaction('sale', saleDate, id, null, sold, soldCost, proceeds);
        break;
      }
      case 'token-saft': {
        const row = addSecurity('token_convertible', round.date, fundFor(round.date), round.id, null, {
          token: spec.token ?? null,
          purchase_amount: money(target, round.date),
        });
        const position: Position = {
          securityId: row.id as string,
          kind: 'token_convertible',
          from: round.date,
          until: null,
          purchase: target,
          cost: target,
          shares: 0,
        };
        positions.push(position);
        pendingToken = { position, amount: target };
        break;
      }
      case 'token-sale': {
        // Token generation: a listed price, a walk afterwards, and the pre-sale converts at half price.
        let tokenPrice = rng.int(900, 1500);
        const launch = tokenPrice;
        for (let d = round.date; d.slice(0, 7) <= DEMO_TODAY.slice(0, 7); d = addMonths(d, 1)) {
          tokens.set(d.slice(0, 7), tokenPrice);
          tokenPrice = Math.max(50, Math.round(tokenPrice * (1 + rng.normal(0.005, 0.14))));
        }
        const fundId = fundFor(round.date);
        const quantity = Math.floor((target * 100) / launch);
        const invested = amountAt(quantity, launch);
        const bought = addSecurity('token_investment', round.date, fundId, round.id, null, {
          token: spec.token ?? null,
          investment_amount: money(invested, round.date),
          quantity: String(quantity),
          price_per_token: priceMoney(launch, round.date),
        });
        positions.push({
          securityId: bought.id as string,
          kind: 'token_investment',
          from: round.date,
          until: null,
          purchase: invested,
          cost: invested,
          shares: quantity,
        });
        if (pendingToken) {
          const presalePrice = Math.round(launch / 2);
          const converted = Math.floor((pendingToken.amount * 100) / presalePrice);
          const out = addSecurity('token_investment', round.date, fundId, round.id, null, {
            token: spec.token ?? null,
            investment_amount: money(pendingToken.amount, round.date),
            quantity: String(converted),
            price_per_token: priceMoney(presalePrice, round.date),
          });
          pendingToken.position.until = round.date;
          positions.push({
            securityId: out.id as string,
            kind: 'token_investment',
            from: round.date,
            until: null,
            purchase: 0,
            cost: pendingToken.amount,
            shares: converted,
          });
          addTransaction(
            'conversion',
            round.date,
            pendingToken.position.securityId,
            out.id as string,
            converted,
            pendingToken.amount,
            null,
          );
          pendingToken = null;
        }
        break;
      }
      case 'token-warrant': {
        const strike = tokens.get(round.date.slice(0, 7)) ?? 1000;
        const quantity = Math.floor((target * 100) / strike);
        const row = addSecurity('token_warrant', round.date, fundFor(round.date), round.id, null, {
          token: spec.token ?? null,
          due_date: addMonths(round.date, 36),
          total_cost: money(amountAt(quantity, strike), round.date),
          exercise_price: priceMoney(strike, round.date),
          quantity: String(quantity),
        });
        positions.push({
          securityId: row.id as string,
          kind: 'token_warrant',
          from: round.date,
          until: null,
          purchase: 0,
          cost: 0,
          shares: quantity,
          strikeE4: strike,
        });
        break;
      }
    }
  }

  // An exit sells every equity position at a multiple of the last round price.
  let exitDate: string | null = null;
  if (spec.status === 'exited' && spec.endDate) {
    exitDate = spec.endDate;
    const lastPrice = prices[prices.length - 1]!.priceE4;
    const exitPrice = Math.round(lastPrice * (spec.exitMultiple ?? 1));
    for (const p of positions) {
      if (p.kind !== 'certificate' || p.until !== null) continue;
      p.until = exitDate;
      p.proceeds = amountAt(p.shares, exitPrice);
      addTransaction('sale', exitDate, p.securityId, null, p.shares, p.cost, p.proceeds);
    }
  }

  for (const fundId of [...fundsUsed].sort()) {
    rows.add('company_funds', { company_id: company.id, fund_id: fundId });
  }
  return { positions, prices, market, tokens, exitDate };
}

/** The investor-side metrics, from the holdings: quarterly marks and the round valuations. */
export function addInvestorMetrics(firm: FirmCtx, company: CompanyCtx, cap: CapTable): void {
  const spec = company.spec;
  const source = 'cap-table';
  const reportedAt = (date: string) => instant(addDays(date, 21), 16);
  const writeOffStart = spec.status === 'written-off' && spec.endDate ? addMonths(spec.endDate, -12) : null;

  const markE4 = (date: string): number => {
    const key = date.slice(0, 7);
    if (cap.market.has(key)) return cap.market.get(key)!;
    const past = cap.prices.filter((p) => p.date <= date);
    let price = past.length > 0 ? past[past.length - 1]!.priceE4 : 0;
    if (writeOffStart && date >= writeOffStart) {
      const left = Math.max(0, 1 - (Date.parse(date) - Date.parse(writeOffStart)) / (365 * 86_400_000));
      price = Math.round(price * left * 0.8);
    }
    return price;
  };
  const fdsAt = (date: string) => {
    const past = cap.prices.filter((p) => p.date <= date);
    return past.length > 0 ? past[past.length - 1]!.fds : FOUNDING_SHARES;
  };

  const valueAt = (date: string) => {
    let invested = 0;
    let realized = 0;
    let fairValue = 0;
    let shares = 0;
    const mark = markE4(date);
    const token = cap.tokens.get(date.slice(0, 7)) ?? 0;
    for (const p of cap.positions) {
      if (p.from > date) continue;
      invested += p.purchase;
      if (p.until !== null && p.until <= date) {
        realized += p.proceeds ?? 0;
        continue;
      }
      switch (p.kind) {
        case 'certificate':
        case 'public_equity':
          fairValue += amountAt(p.shares, mark);
          shares += p.shares;
          break;
        case 'convertible':
        case 'token_convertible':
          fairValue += p.cost;
          break;
        case 'warrant':
          fairValue += amountAt(p.shares, Math.max(0, mark - p.strikeE4!));
          break;
        case 'token_investment':
          fairValue += amountAt(p.shares, token);
          break;
        case 'token_warrant':
          fairValue += amountAt(p.shares, Math.max(0, token - p.strikeE4!));
          break;
      }
    }
    return { invested, realized, fairValue, shares };
  };

  const months = company.model.books.map((b) => b.month);
  const quarterEnds = months
    .filter((m) => isQuarterEnd(m.month) && m.end >= company.firstDate)
    .map((m) => m.end);
  for (const date of quarterEnds) {
    const v = valueAt(date);
    if (v.invested === 0) continue;
    const options = { createdAt: reportedAt(date), source };
    addMetric(firm, company, standardCategory('investment_amount'), date, fmtCents(v.invested), options);
    addMetric(firm, company, standardCategory('fair_value'), date, fmtCents(v.fairValue), options);
    const moic = (v.fairValue + v.realized) / v.invested;
    addMetric(firm, company, standardCategory('moic'), date, fmtFixed(moic, 2), options);
    addMetric(
      firm,
      company,
      standardCategory('ownership'),
      date,
      fmtFraction(v.shares / fdsAt(date)),
      options,
    );
  }

  const first = months[0]!.start;
  for (const round of company.model.rounds) {
    if (round.preMoney === null || round.date < first) continue;
    const options = { createdAt: reportedAt(round.date), source };
    addMetric(
      firm,
      company,
      standardCategory('pre_money_valuation'),
      round.date,
      fmtCents(round.preMoney),
      options,
    );
    addMetric(
      firm,
      company,
      standardCategory('post_money_valuation'),
      round.date,
      fmtCents(round.preMoney + round.size),
      options,
    );
  }

  if (cap.exitDate) {
    const v = valueAt(cap.exitDate);
    addMetric(firm, company, standardCategory('realized_value'), cap.exitDate, fmtCents(v.realized), {
      createdAt: reportedAt(cap.exitDate),
      source,
    });
  }
  if (spec.status === 'written-off' && spec.endDate) {
    addMetric(firm, company, standardCategory('fair_value'), spec.endDate, '0.00', {
      createdAt: reportedAt(spec.endDate),
      source,
    });
  }
}
