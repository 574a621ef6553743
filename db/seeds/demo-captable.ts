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

/** A convertible waiting for the next priced round. */
interface PendingConversion {
  position: Position;
  row: Row;
  roundSize: number;
  discount: number;
  capE4: number | null;
  accruedRate: number;
}

/** Convertibles converting into a priced round: the fund's new shares and the round's extra ones. */
interface Conversions {
  /** Shares every converting holder (not only the fund) receives, added to the fully diluted count. */
  shares: number;
  fund: { position: Position; shares: number; accrued: number }[];
}

/** What every kind of round needs to know about the round being written. */
interface RoundStep {
  round: Round;
  /** Price per share of an equity round, in 1/10000 units; 0 otherwise. */
  priceE4: number;
  /** The fund's intended check, in cents. */
  target: number;
  conversions: Conversions;
}

/** Builds one company's cap table round by round; the rows go to the firm's seed rows. */
class CapTableBuilder {
  private readonly rows: FirmCtx['rows'];
  private readonly ids: FirmCtx['ids'];
  private readonly currency: string;
  private readonly rng: CompanyCtx['rng'];
  readonly positions: Position[] = [];
  readonly prices: PricePoint[] = [];
  readonly market = new Map<string, number>();
  readonly tokens = new Map<string, number>();
  private readonly byName = new Map<string, Round>();
  private readonly fundsUsed = new Set<string>();
  private fds = FOUNDING_SHARES;
  private pricedCount = 0;
  private pending: PendingConversion[] = [];
  private pendingToken: { position: Position; amount: number } | null = null;

  constructor(
    private readonly firm: FirmCtx,
    private readonly company: CompanyCtx,
  ) {
    this.rows = firm.rows;
    this.ids = firm.ids;
    this.currency = company.spec.currency;
    this.rng = company.rng.fork('captable');
  }

  build(): CapTable {
    for (const round of this.company.model.rounds) this.addRound(round);
    const exitDate = this.sellAtExit();
    for (const fundId of [...this.fundsUsed].sort()) {
      this.rows.add('company_funds', { company_id: this.company.id, fund_id: fundId });
    }
    const { positions, prices, market, tokens } = this;
    return { positions, prices, market, tokens, exitDate };
  }

  private addRound(round: Round): void {
    this.byName.set(round.name, round);
    const isPriced = round.kind === 'priced';
    const isEquity = isPriced || round.kind === 'ipo';
    const fdsPre = this.fds;
    const priceE4 = isEquity ? Math.round((round.preMoney! * 100) / fdsPre) : 0;
    const conversions = isPriced ? this.convertPending(round, priceE4, fdsPre) : { shares: 0, fund: [] };
    if (isEquity) this.dilute(round, priceE4, fdsPre, conversions.shares);
    this.addFinancing(round);
    this.addCoInvestors(round);
    this.addPariPassu(round);
    const step: RoundStep = { round, priceE4, target: this.fundTarget(round), conversions };
    switch (round.kind) {
      case 'priced':
        this.addPricedRound(step);
        break;
      case 'safe':
      case 'note':
        this.addConvertible(step);
        break;
      case 'ipo':
        this.addListing(step);
        break;
      case 'token-saft':
        this.addTokenPresale(step);
        break;
      case 'token-sale':
        this.addTokenSale(step);
        break;
      case 'token-warrant':
        this.addTokenWarrant(step);
        break;
    }
  }

  private fundFor(date: string): string {
    const key = this.firm.spec.fundFor(date, this.company.firstDate);
    const fund = this.firm.funds.get(key)!;
    this.fundsUsed.add(fund.id);
    return fund.id;
  }

  private money(cents: number, date: string) {
    return moneyJson(this.firm, cents, this.currency, date);
  }

  private priceMoney(e4: number, date: string) {
    return { ...this.money(0, date), value: fmtE4(e4) };
  }

  private rate(date: string): string {
    return this.firm.fx.rate(this.currency, this.firm.spec.currency, date);
  }

  private addSecurity(
    kind: SecurityKind,
    date: string,
    fundId: string,
    financingId: string | null,
    shareClassId: string | null,
    details: Record<string, unknown>,
  ): Row {
    return this.rows.add('securities', {
      id: this.ids.next('sec'),
      firm_id: this.firm.id,
      company_id: this.company.id,
      fund_id: fundId,
      financing_id: financingId,
      share_class_id: shareClassId,
      type: kind,
      issue_date: date,
      details: JSON.stringify(details),
      created_at: instant(addDays(date, 3), 11),
    });
  }

  private addTransaction(
    event: 'exercise' | 'conversion' | 'sale',
    date: string,
    input: string,
    output: string | null,
    shares: number | null,
    invested: number,
    proceeds: number | null,
  ): void {
    const { currency } = this;
    const rate = this.rate(date);
    this.rows.add('transactions', {
      id: this.ids.next('txn'),
      firm_id: this.firm.id,
      company_id: this.company.id,
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
  }

  private addShareClass(
    round: Round,
    name: string,
    purchaseType: 'primary' | 'secondary',
    type: 'common' | 'preferred',
    priceE4: number,
  ): string {
    const id = this.ids.next('shc');
    this.rows.add('share_classes', {
      id,
      firm_id: this.firm.id,
      company_id: this.company.id,
      financing_id: round.id,
      purchase_type: purchaseType,
      type,
      name,
      price_per_share_value: fmtE4(priceE4),
      price_per_share_currency: this.currency,
      price_per_share_fx_rate: this.rate(round.date),
      price_per_share_is_custom_rate: false,
      include_in_fair_value: purchaseType === 'primary',
      created_at: instant(addDays(round.date, 2), 10, 30),
    });
    return id;
  }

  /** A certificate bought for about `target` cents: whole shares at the class price. */
  private buyCertificate(
    round: Round,
    classId: string,
    className: string,
    priceE4: number,
    target: number,
  ): Position {
    const shares = Math.floor((target * 100) / priceE4);
    const invested = amountAt(shares, priceE4);
    const row = this.addSecurity('certificate', round.date, this.fundFor(round.date), round.id, classId, {
      investment_amount: this.money(invested, round.date),
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
    this.positions.push(position);
    return position;
  }

  /** Convertibles outstanding convert into this priced round. */
  private convertPending(round: Round, priceE4: number, fdsPre: number): Conversions {
    const conversions: Conversions = { shares: 0, fund: [] };
    for (const p of this.pending.splice(0)) {
      const discounted = Math.round(priceE4 * (1 - p.discount));
      const convPrice =
        p.capE4 === null ? discounted : Math.min(discounted, Math.round((p.capE4 * 100) / fdsPre));
      const days = (Date.parse(round.date) - Date.parse(p.position.from)) / 86_400_000;
      const accrued = Math.round(p.position.cost * p.accruedRate * (days / 365));
      const roundAccrued = Math.round(p.roundSize * p.accruedRate * (days / 365));
      conversions.shares += Math.floor(((p.roundSize + roundAccrued) * 100) / convPrice);
      conversions.fund.push({
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
    return conversions;
  }

  /** New shares, converted ones and (after the first priced round) a pool top-up: the new price point. */
  private dilute(round: Round, priceE4: number, fdsPre: number, conversionShares: number): void {
    const newShares = Math.round((round.size * 100) / priceE4);
    const pool =
      round.kind === 'priced' && this.pricedCount > 0 ? Math.round((fdsPre + newShares) * 0.04) : 0;
    this.fds = fdsPre + newShares + conversionShares + pool;
    this.prices.push({ date: round.date, priceE4, fds: this.fds });
  }

  private addFinancing(round: Round): void {
    const { plan } = round;
    const { currency, rng, pricedCount } = this;
    const isPriced = round.kind === 'priced';
    const isEquity = isPriced || round.kind === 'ipo';
    const rate = this.rate(round.date);
    const customRate = plan.name === 'Series B' && this.company.spec.currency === 'INR';
    const sizeRate = customRate ? (Number(rate) * 1.004).toFixed(6) : rate;
    const seniority: Seniority | null = isPriced
      ? (plan.seniority ??
        (pricedCount === 0 ? 'SENIOR_TO_ALL' : rng.pick(['SENIOR_TO_ALL', 'PARI_PASSU_ALL_PREVIOUS'])))
      : null;
    const participation: Participation | null = isPriced
      ? (plan.participation ?? (rng.chance(0.85) ? 'NON_PARTICIPATING' : 'FULLY_PARTICIPATING'))
      : null;
    this.rows.add('financings', {
      id: round.id,
      firm_id: this.firm.id,
      company_id: this.company.id,
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
      fully_diluted_shares: isEquity ? String(this.fds) : null,
      is_crypto: round.kind.startsWith('token'),
      liquidation_multiple: isPriced ? (plan.liquidationMultiple ?? '1.00') : null,
      cap_multiple: participation === 'CAPPED_PARTICIPATING' ? (plan.capMultiple ?? '3.00') : null,
      seniority_position: seniority,
      participation_type: participation,
      created_at: instant(addDays(round.date, 2), 10),
    });
  }

  /** The firm itself first when it led, otherwise another lead; a few others. */
  private addCoInvestors(round: Round): void {
    const others = this.rng.sample(this.firm.spec.coInvestors, this.rng.int(1, 3));
    const investors = round.plan.lead ? [this.firm.spec.name, ...others] : others;
    investors.forEach((name, position) => {
      this.rows.add('financing_co_investors', {
        id: this.ids.next('coi'),
        financing_id: round.id,
        name,
        is_lead: position === 0,
        position,
      });
    });
  }

  private addPariPassu(round: Round): void {
    (round.plan.pariPassuWith ?? []).forEach((otherName, position) => {
      const other = this.byName.get(otherName);
      if (!other) {
        throw new Error(`${this.company.spec.name}: pari passu round ${otherName} must come earlier`);
      }
      this.rows.add('financing_pari_passu', {
        financing_id: round.id,
        other_financing_id: other.id,
        position,
      });
    });
  }

  /** The fund's check: a share of the round, at most 8 % of the fund's size. */
  private fundTarget(round: Round): number {
    const { firm, rng, currency } = this;
    const share =
      round.kind === 'ipo'
        ? rng.between(0.01, 0.03)
        : round.plan.lead
          ? rng.between(0.35, 0.55)
          : rng.between(0.08, 0.2);
    const fund = firm.spec.funds.find(
      (f) => f.key === firm.spec.fundFor(round.date, this.company.firstDate),
    )!;
    const maxCheck = (Number(fund.size) * 0.08) / Number(firm.fx.rate(currency, fund.currency, round.date));
    return nice(Math.min((round.size / 100) * share, maxCheck)) * 100;
  }

  /** Preferred shares, the converted notes and SAFEs, and optionally a secondary and a warrant. */
  private addPricedRound({ round, priceE4, target, conversions }: RoundStep): void {
    const { plan } = round;
    const className = `${round.name} Preferred`;
    const classId = this.addShareClass(round, className, 'primary', 'preferred', priceE4);
    const bought = this.buyCertificate(round, classId, className, priceE4, target);
    for (const c of conversions.fund) this.convertIntoClass(round, classId, className, c);
    if (plan.secondary) {
      const secondaryPrice = Math.round(priceE4 * 0.7);
      const secondaryName = 'Common (secondary)';
      const secondaryId = this.addShareClass(round, secondaryName, 'secondary', 'common', secondaryPrice);
      this.buyCertificate(
        round,
        secondaryId,
        secondaryName,
        secondaryPrice,
        nice((round.size / 100) * 0.03) * 100,
      );
    }
    if (plan.warrant) this.addWarrant(round, classId, className, priceE4, bought.shares);
    this.pricedCount++;
  }

  private convertIntoClass(
    round: Round,
    classId: string,
    className: string,
    c: Conversions['fund'][number],
  ): void {
    const out = this.addSecurity(
      'certificate',
      round.date,
      this.fundFor(c.position.from),
      round.id,
      classId,
      {
        investment_amount: this.money(c.position.cost, round.date),
        shares: String(c.shares),
        share_class_name: className,
      },
    );
    c.position.until = round.date;
    this.positions.push({
      securityId: out.id as string,
      kind: 'certificate',
      from: round.date,
      until: null,
      purchase: 0,
      cost: c.position.cost,
      shares: c.shares,
    });
    this.addTransaction(
      'conversion',
      round.date,
      c.position.securityId,
      out.id as string,
      c.shares,
      c.position.cost,
      null,
    );
  }

  /** A warrant for a tenth of the shares bought, exercised later when the plan says so. */
  private addWarrant(
    round: Round,
    classId: string,
    className: string,
    priceE4: number,
    bought: number,
  ): void {
    const warrantShares = Math.round(bought * 0.1);
    const fundId = this.fundFor(round.date);
    const warrant = this.addSecurity('warrant', round.date, fundId, round.id, null, {
      due_date: addMonths(round.date, 84),
      exercise_price: this.priceMoney(priceE4, round.date),
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
    this.positions.push(position);
    const exercisedAt = round.plan.warrant?.exercisedAt;
    if (!exercisedAt) return;
    const cost = amountAt(warrantShares, priceE4);
    const out = this.addSecurity('certificate', exercisedAt, fundId, round.id, classId, {
      investment_amount: this.money(cost, exercisedAt),
      shares: String(warrantShares),
      share_class_name: className,
    });
    position.until = exercisedAt;
    this.positions.push({
      securityId: out.id as string,
      kind: 'certificate',
      from: exercisedAt,
      until: null,
      purchase: cost,
      cost,
      shares: warrantShares,
    });
    this.addTransaction(
      'exercise',
      exercisedAt,
      warrant.id as string,
      out.id as string,
      warrantShares,
      cost,
      null,
    );
  }

  /** A SAFE or a convertible note, pending until the next priced round. */
  private addConvertible({ round, target }: RoundStep): void {
    const isNote = round.kind === 'note';
    const cap = isNote ? null : nice((round.size / 100) * this.rng.between(6, 10)) * 100;
    const invested = isNote ? nice((round.size / 100) * 0.5) * 100 : target;
    const row = this.addSecurity('convertible', round.date, this.fundFor(round.date), round.id, null, {
      convertible_type: isNote ? 'convertible_note' : 'safe',
      discount: isNote ? '0.15' : '0.20',
      valuation_cap: cap === null ? null : this.money(cap, round.date),
      maturity_date: isNote ? addMonths(round.date, 18) : null,
      interest_rate: isNote ? '0.08' : null,
      days_convention: isNote ? 365 : null,
      investment_amount: this.money(invested, round.date),
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
    this.positions.push(position);
    this.pending.push({
      position,
      row,
      roundSize: round.size,
      discount: isNote ? 0.15 : 0.2,
      capE4: cap,
      accruedRate: isNote ? 0.08 : 0,
    });
  }

  /** A listing: public shares at the offer price, a monthly market price, part sold after the lock-up. */
  private addListing({ round, priceE4, target }: RoundStep): void {
    const className = 'Class A Common';
    this.addShareClass(round, className, 'primary', 'common', priceE4);
    const shares = Math.floor((target * 100) / priceE4);
    const invested = amountAt(shares, priceE4);
    const fundId = this.fundFor(round.date);
    const row = this.addSecurity('public_equity', round.date, fundId, null, null, {
      price_per_share: this.priceMoney(priceE4, round.date),
      shares: String(shares),
      investment_amount: this.money(invested, round.date),
    });
    // A listed stock: a monthly random walk from the offer price.
    let price = priceE4;
    for (let d = round.date; d.slice(0, 7) <= DEMO_TODAY.slice(0, 7); d = addMonths(d, 1)) {
      this.market.set(d.slice(0, 7), price);
      price = Math.max(1, Math.round(price * (1 + this.rng.normal(0.012, 0.08))));
    }
    const saleDate = addMonths(round.date, 6);
    const sold = Math.round(shares * 0.4);
    const soldCost = Math.round((invested * sold) / shares);
    const proceeds = amountAt(sold, this.market.get(saleDate.slice(0, 7)) ?? priceE4);
    const id = row.id as string;
    this.positions.push(
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
    if (saleDate <= DEMO_TODAY) this.addTransaction('sale', saleDate, id, null, sold, soldCost, proceeds);
  }

  /** A token pre-sale (SAFT), pending until the token generation event. */
  private addTokenPresale({ round, target }: RoundStep): void {
    const row = this.addSecurity('token_convertible', round.date, this.fundFor(round.date), round.id, null, {
      token: this.company.spec.token ?? null,
      purchase_amount: this.money(target, round.date),
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
    this.positions.push(position);
    this.pendingToken = { position, amount: target };
  }

  /** Token generation: a listed price, a walk afterwards, and the pre-sale converts at half price. */
  private addTokenSale({ round, target }: RoundStep): void {
    const token = this.company.spec.token ?? null;
    let tokenPrice = this.rng.int(900, 1500);
    const launch = tokenPrice;
    for (let d = round.date; d.slice(0, 7) <= DEMO_TODAY.slice(0, 7); d = addMonths(d, 1)) {
      this.tokens.set(d.slice(0, 7), tokenPrice);
      tokenPrice = Math.max(50, Math.round(tokenPrice * (1 + this.rng.normal(0.005, 0.14))));
    }
    const fundId = this.fundFor(round.date);
    const quantity = Math.floor((target * 100) / launch);
    const invested = amountAt(quantity, launch);
    const bought = this.addSecurity('token_investment', round.date, fundId, round.id, null, {
      token,
      investment_amount: this.money(invested, round.date),
      quantity: String(quantity),
      price_per_token: this.priceMoney(launch, round.date),
    });
    this.positions.push({
      securityId: bought.id as string,
      kind: 'token_investment',
      from: round.date,
      until: null,
      purchase: invested,
      cost: invested,
      shares: quantity,
    });
    const presale = this.pendingToken;
    if (!presale) return;
    const presalePrice = Math.round(launch / 2);
    const converted = Math.floor((presale.amount * 100) / presalePrice);
    // The converted tokens stay with the fund that bought the pre-sale: its cost and their value together.
    const out = this.addSecurity(
      'token_investment',
      round.date,
      this.fundFor(presale.position.from),
      round.id,
      null,
      {
        token,
        investment_amount: this.money(presale.amount, round.date),
        quantity: String(converted),
        price_per_token: this.priceMoney(presalePrice, round.date),
      },
    );
    presale.position.until = round.date;
    this.positions.push({
      securityId: out.id as string,
      kind: 'token_investment',
      from: round.date,
      until: null,
      purchase: 0,
      cost: presale.amount,
      shares: converted,
    });
    this.addTransaction(
      'conversion',
      round.date,
      presale.position.securityId,
      out.id as string,
      converted,
      presale.amount,
      null,
    );
    this.pendingToken = null;
  }

  /** A token warrant struck at the month's token price. */
  private addTokenWarrant({ round, target }: RoundStep): void {
    const strike = this.tokens.get(round.date.slice(0, 7)) ?? 1000;
    const quantity = Math.floor((target * 100) / strike);
    const row = this.addSecurity('token_warrant', round.date, this.fundFor(round.date), round.id, null, {
      token: this.company.spec.token ?? null,
      due_date: addMonths(round.date, 36),
      total_cost: this.money(amountAt(quantity, strike), round.date),
      exercise_price: this.priceMoney(strike, round.date),
      quantity: String(quantity),
    });
    this.positions.push({
      securityId: row.id as string,
      kind: 'token_warrant',
      from: round.date,
      until: null,
      purchase: 0,
      cost: 0,
      shares: quantity,
      strikeE4: strike,
    });
  }

  /** An exit sells every equity position at a multiple of the last round price; the exit date or null. */
  private sellAtExit(): string | null {
    const { spec } = this.company;
    if (spec.status !== 'exited' || !spec.endDate) return null;
    const exitDate = spec.endDate;
    const lastPrice = this.prices[this.prices.length - 1]!.priceE4;
    const exitPrice = Math.round(lastPrice * (spec.exitMultiple ?? 1));
    for (const p of this.positions) {
      if (p.kind !== 'certificate' || p.until !== null) continue;
      p.until = exitDate;
      p.proceeds = amountAt(p.shares, exitPrice);
      this.addTransaction('sale', exitDate, p.securityId, null, p.shares, p.cost, p.proceeds);
    }
    return exitDate;
  }
}

export function buildCapTable(firm: FirmCtx, company: CompanyCtx): CapTable {
  return new CapTableBuilder(firm, company).build();
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
