/**
 * The operating model behind the demo metrics: a month-by-month simulation of each company that
 * keeps the accounting identities exact (all amounts are integer cents):
 *
 *   gross_profit = revenue − cost_of_goods_sold          ebitda = gross_profit − total_operating_expenses
 *   net_burn = capex − ebitda − working-capital change − interest income
 *   cash_in_bank(m) = cash_in_bank(m−1) − net_burn(m) + financing inflow(m)
 *   net_new_arr = new_logo + expansion + reactivation − contraction − churned;  arr(m) = arr(m−1) + net_new_arr(m)
 *
 * Financing inflows happen exactly in the months of the company's cap-table financings; rounds that
 * close inside the data window are sized from the burn at the time (about two years of runway).
 */

import type { CompanySpec, FirmSpec, Model, RoundKind, RoundPlan, Stage } from './demo-world.ts';
import { USD_ANCHOR } from './fx.ts';
import type { Rng } from './random.ts';
import { addMonths, type Month, monthsBetween, nice } from './values.ts';

interface StageTerms {
  /** Round size range, US dollars. */
  size: [number, number];
  /** Pre-money as a multiple of the round size. */
  preMultiple: [number, number];
  /** Monthly revenue (US dollars) and headcount of a company at that stage. */
  revenue: number;
  headcount: number;
  /** Monthly growth rate at that stage. */
  growth: number;
}

export const STAGES: Record<Stage, StageTerms> = {
  'Pre-seed': { size: [600_000, 1_500_000], preMultiple: [4, 7], revenue: 6_000, headcount: 5, growth: 0.09 },
  Seed: { size: [2_000_000, 5_000_000], preMultiple: [3, 4.5], revenue: 35_000, headcount: 12, growth: 0.07 },
  'Series A': {
    size: [8_000_000, 18_000_000],
    preMultiple: [3, 4],
    revenue: 160_000,
    headcount: 38,
    growth: 0.05,
  },
  'Series B': {
    size: [22_000_000, 45_000_000],
    preMultiple: [3.5, 5],
    revenue: 650_000,
    headcount: 105,
    growth: 0.035,
  },
  'Series C': {
    size: [55_000_000, 100_000_000],
    preMultiple: [4, 6],
    revenue: 2_200_000,
    headcount: 260,
    growth: 0.025,
  },
};

/** Loaded monthly cost of one employee, US dollars, by city. */
const COST_PER_FTE: Record<string, number> = {
  'San Francisco': 16_500,
  'New York': 15_500,
  Boston: 14_500,
  Seattle: 15_500,
  Cambridge: 15_000,
  Austin: 13_000,
  Chicago: 13_000,
  Denver: 12_500,
  'Tel Aviv': 13_000,
  Zug: 14_000,
  London: 11_500,
  Manchester: 9_000,
  Berlin: 9_500,
  Munich: 10_000,
  Paris: 10_000,
  Amsterdam: 10_000,
  Rotterdam: 9_500,
  Dublin: 10_500,
  Lisbon: 6_500,
  Stockholm: 9_500,
  Toronto: 9_000,
  Vancouver: 9_000,
  Singapore: 9_500,
  Bengaluru: 3_200,
  Mumbai: 3_000,
};

/** Calendar seasonality of revenue (index 0 = January). */
const SEASON: Record<Model, number[]> = {
  saas: [0.97, 0.97, 1.01, 0.99, 1, 1.02, 0.98, 0.97, 1.01, 1.02, 1.02, 1.04],
  marketplace: [0.92, 0.94, 1.02, 1.01, 1.03, 1.04, 0.98, 0.97, 1.03, 1.05, 1.03, 0.98],
  consumer: [1.05, 0.93, 1.0, 1.04, 1.06, 0.97, 0.9, 0.88, 0.98, 1.04, 1.12, 1.22],
  fintech: [0.96, 0.95, 1.0, 1.0, 1.01, 1.01, 0.99, 0.98, 1.0, 1.02, 1.03, 1.08],
  climate: [0.9, 0.92, 1.0, 1.02, 1.05, 1.08, 1.04, 1.0, 1.02, 1.0, 0.98, 1.0],
  health: [1.06, 1.03, 1.02, 0.99, 0.98, 0.96, 0.94, 0.96, 1.0, 1.02, 1.02, 1.0],
  biotech: [1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1],
};

/** New-logo bookings are lumpy: quarter ends and December close more deals. */
const NEW_LOGO_SEASON = [0.8, 0.9, 1.15, 0.9, 0.95, 1.12, 0.85, 0.85, 1.12, 1.0, 1.05, 1.35];

const GROSS_MARGIN: Record<Model, [number, number]> = {
  saas: [0.72, 0.82],
  marketplace: [0.55, 0.68],
  fintech: [0.45, 0.62],
  climate: [0.18, 0.3],
  health: [0.38, 0.55],
  consumer: [0.36, 0.48],
  biotech: [0, 0],
};

/** Sales and marketing spend as a share of revenue. */
const MARKETING: Record<Model, number> = {
  saas: 0.26,
  marketplace: 0.3,
  consumer: 0.34,
  fintech: 0.2,
  climate: 0.08,
  health: 0.18,
  biotech: 0,
};

/** Capital expenditure as a share of operating expenses. */
const CAPEX: Record<Model, [number, number]> = {
  saas: [0.005, 0.015],
  marketplace: [0.005, 0.02],
  fintech: [0.01, 0.02],
  consumer: [0.01, 0.03],
  health: [0.01, 0.025],
  climate: [0.08, 0.16],
  biotech: [0.03, 0.06],
};

export interface Round {
  id: string;
  plan: RoundPlan;
  kind: RoundKind;
  name: string;
  stage: Stage;
  date: string;
  /** Money raised, integer cents of the company currency. */
  size: number;
  /** Pre-money valuation in cents; null for SAFEs, notes and token rounds. */
  preMoney: number | null;
  /** Venture debt drawn alongside the round (cents), for hardware companies. */
  debt: number;
}

/** One month of a company's books, all amounts in integer cents of its currency. */
export interface MonthBook {
  month: Month;
  date: string;
  revenue: number;
  cogs: number;
  grossProfit: number;
  opex: number;
  ebitda: number;
  depreciation: number;
  interestIncome: number;
  netIncome: number;
  capex: number;
  workingCapital: number;
  netBurn: number;
  cfo: number;
  cfi: number;
  cff: number;
  cash: number;
  /** cash / average net burn of the last 3 months; null when the company does not burn. */
  runway: number | null;
  headcount: number;
  ppe: number;
  longTermDebt: number;
  receivables: number;
  payables: number;
  shortTermInvestments: number;
  arr: number;
  newLogo: number;
  expansion: number;
  contraction: number;
  churned: number;
  reactivation: number;
  netNewArr: number;
  customers: number;
  activeUsers: number;
}

export interface CompanyModel {
  spec: CompanySpec;
  rounds: Round[];
  books: MonthBook[];
  /** Stage of the company when its data starts. */
  startStage: Stage;
  /** Months in which the company had to stretch payables to stay above zero cash. */
  squeezes: number;
}

const stageOf = (round: RoundPlan): Stage => {
  if (round.stage) return round.stage;
  if (round.name in STAGES) return round.name as Stage;
  return 'Seed';
};

const cents = (units: number) => Math.round(units * 100);
/** Whole currency units, as cents. */
const wholeCents = (units: number) => Math.round(units) * 100;

function sizeRound(rng: Rng, kind: RoundKind, stage: Stage, scale: number): number {
  const usd = (() => {
    switch (kind) {
      case 'ipo':
        return rng.between(180e6, 260e6);
      case 'token-saft':
        return rng.between(2.5e6, 4e6);
      case 'token-sale':
        return rng.between(10e6, 15e6);
      case 'token-warrant':
        return rng.between(5e6, 8e6);
      case 'safe':
        return rng.between(...STAGES['Pre-seed'].size);
      default:
        return rng.between(...STAGES[stage].size);
    }
  })();
  return nice(usd * scale) * 100;
}

/** The months a company reports: from six months before its first round to its exit or write-off. */
export function reportingMonths(spec: CompanySpec, months: readonly Month[]): Month[] {
  const first = spec.rounds[0]!.date;
  const from = addMonths(first, -6).slice(0, 7);
  return months.filter((m) => m.key >= from && (!spec.endDate || m.end <= spec.endDate));
}

/** What a company is like: drawn once, fixed for the whole simulation. */
interface Character {
  quality: number;
  season: number[];
  costPerFte: number;
  gna: number;
  gm0: number;
  gmDrift: number;
  marketing: number;
  capexShare: number;
  dso: number;
  dpo: number;
  churnRate: number;
  contractionRate: number;
  expansionRate: number;
  reactivates: boolean;
  servicesShare: number;
  acv: number;
  usersPerRevenue: number;
  /** From this date on a company that will be written off declines. */
  declineFrom: string | null;
}

/** One month's sales: revenue and, for SaaS, the ARR movements. */
interface Sales {
  revenue: number;
  newLogo: number;
  expansion: number;
  contraction: number;
  churned: number;
  reactivation: number;
}

/** One month's costs, all in cents. */
interface Costs {
  cogs: number;
  grossProfit: number;
  opex: number;
  ebitda: number;
  capex: number;
  depreciation: number;
}

/** The month-by-month simulation of one company; its state is the company's books so far. */
class CompanySimulation {
  private readonly scale: number;
  private readonly months: Month[];
  private readonly start: Month;
  private readonly model: Model;
  private readonly rounds: Round[];
  private readonly lastBefore: Round | undefined;
  private readonly startStage: Stage;
  private readonly terms: StageTerms;
  private readonly c: Character;

  private revenueTrend: number;
  private arr: number;
  private headcount = 0;
  private cash = 0;
  private ppe = 0;
  private longTermDebt = 0;
  private lastLayoff = -99;
  private customers = 0;
  private activeUsers = 0;
  private readonly burns: number[] = [];
  private readonly books: MonthBook[] = [];
  private squeezes = 0;

  constructor(
    firm: FirmSpec,
    private readonly spec: CompanySpec,
    private readonly rng: Rng,
    newId: (prefix: string) => string,
  ) {
    this.scale = 1 / USD_ANCHOR[spec.currency]!;
    this.months = reportingMonths(spec, firm.months);
    this.start = this.months[0]!;
    this.model = spec.model;

    // Rounds: those before the data sized from the stage table, the others in the simulation.
    this.rounds = spec.rounds.map((plan) => ({
      id: newId('fin'),
      plan,
      kind: plan.kind ?? 'priced',
      name: plan.name,
      stage: stageOf(plan),
      date: plan.date,
      size: 0,
      preMoney: null,
      debt: 0,
    }));
    const before = this.rounds.filter((r) => r.date < this.start.start);
    for (const r of before) r.size = sizeRound(rng, r.kind, r.stage, this.scale);
    this.lastBefore = before[before.length - 1];
    const priced = before.filter((r) => r.kind === 'priced');
    this.startStage = priced.length > 0 ? priced[priced.length - 1]!.stage : 'Pre-seed';
    this.terms = STAGES[this.startStage];
    this.c = this.drawCharacter();

    const { model, terms, c, scale } = this;
    this.revenueTrend = model === 'biotech' ? 0 : terms.revenue * c.quality * scale;
    this.arr = model === 'saas' ? wholeCents(this.revenueTrend * 12 * (1 - c.servicesShare)) : 0;
    if (this.arr > 0) this.revenueTrend = this.arr / 100 / 12 / (1 - c.servicesShare);
  }

  run(): CompanyModel {
    this.openBooks();
    for (let k = 0; k < this.months.length; k++) this.simulateMonth(k);
    // Rounds after the data (none in the demo) keep a size from the stage table.
    for (const r of this.rounds) if (r.size === 0) r.size = sizeRound(this.rng, r.kind, r.stage, this.scale);
    this.valueRounds();
    const { spec, rounds, books, startStage, squeezes } = this;
    return { spec, rounds, books, startStage, squeezes };
  }

  private drawCharacter(): Character {
    const { rng, model, spec, scale } = this;
    const quality = rng.between(0.75, 1.3);
    const [gmLow, gmHigh] = GROSS_MARGIN[model];
    return {
      quality,
      season: SEASON[model],
      costPerFte: (COST_PER_FTE[spec.city] ?? 10_000) * scale,
      gna: 15_000 * scale,
      gm0: rng.between(gmLow, gmHigh),
      gmDrift: rng.between(0.01, 0.06),
      marketing: MARKETING[model] * rng.between(0.8, 1.2),
      capexShare: rng.between(...CAPEX[model]),
      dso: rng.between(30, 55),
      dpo: rng.between(25, 45),
      churnRate: rng.between(0.005, 0.012),
      contractionRate: rng.between(0.002, 0.005),
      expansionRate: rng.between(0.008, 0.02),
      reactivates: rng.chance(0.6),
      servicesShare: rng.between(0.03, 0.1),
      acv: rng.between(8_000, 40_000) * scale,
      usersPerRevenue: rng.between(0.02, 0.08) / scale,
      declineFrom: spec.status === 'written-off' && spec.endDate ? addMonths(spec.endDate, -15) : null,
    };
  }

  private grossMarginAt(k: number): number {
    return this.c.gm0 + (this.c.gmDrift * k) / 60;
  }

  /** Monthly cost of one more employee, with the overheads and lab or plant spend that scale with the team. */
  private perHead(k: number): number {
    const { costPerFte, gna, capexShare } = this.c;
    return (
      (costPerFte * 1.04 ** (k / 12) + gna / 40) * (this.model === 'biotech' ? 2.2 : 1) * (1 + capexShare)
    );
  }

  private burnAt(hc: number, rev: number, k: number): number {
    const { marketing, gna } = this.c;
    return (
      hc * this.perHead(k) +
      rev * marketing +
      gna -
      rev * (this.model === 'biotech' ? 0 : this.grossMarginAt(k))
    );
  }

  private nextRoundAfter(date: string): Round | undefined {
    return this.rounds.find((r) => r.date > date);
  }

  /**
   * Team and cash at the start: enough to reach the next round with a few months to spare, or what
   * is left of the last round when no other is coming.
   */
  private openBooks(): void {
    const { rng, terms, lastBefore, start, scale, model, c } = this;
    let headcount = Math.max(3, Math.round(terms.headcount * rng.between(0.8, 1.2)));
    const firstNext = this.nextRoundAfter(start.start);
    const leftOfLast = lastBefore
      ? lastBefore.size * Math.min(0.95, Math.max(0.3, 1 - monthsBetween(lastBefore.date, start.start) / 30))
      : Number.POSITIVE_INFINITY;
    const toNext = firstNext ? monthsBetween(start.start, firstNext.date) + rng.int(4, 8) : 24;
    this.cash = Math.round(
      Math.min(
        leftOfLast,
        cents(Math.max(this.burnAt(headcount, this.revenueTrend, 0), 10_000 * scale) * toNext),
      ),
    );
    while (headcount > 3 && this.burnAt(headcount, this.revenueTrend, 0) * toNext > this.cash / 100) {
      headcount--;
    }
    this.headcount = headcount;
    this.ppe =
      model === 'climate' || model === 'biotech'
        ? cents(headcount * c.costPerFte * 2)
        : cents(headcount * 1500 * scale);
    this.customers = Math.max(3, Math.round(this.arr / 100 / c.acv));
  }

  private simulateMonth(k: number): void {
    const month = this.months[k]!;
    const declining = this.c.declineFrom !== null && month.start >= this.c.declineFrom;
    const slowdown = month.key >= '2022-07' && month.key <= '2023-12' ? 0.55 : 1;
    const floor = 0.008;
    let growth = (floor + (this.terms.growth - floor) * 0.972 ** k) * this.c.quality * slowdown;
    if (declining) growth = -0.03;

    const inflow = this.closeRounds(month);
    this.adjustTeam(k, month, declining, growth, inflow);
    const sales = this.sell(month, declining, growth);
    const costs = this.spend(k, month, declining, inflow, sales.revenue);
    this.closeMonth(month, inflow, sales, costs);
  }

  /** Financing closing this month, sized from the burn of the last quarter: the month's inflow. */
  private closeRounds(month: Month): number {
    const { rng, rounds, burns, scale } = this;
    const closing = rounds.filter((r) => r.date >= month.start && r.date <= month.end);
    let inflow = 0;
    for (const r of closing) {
      const avgBurn =
        burns.length > 0 ? burns.slice(-3).reduce((a, b) => a + b, 0) / Math.min(3, burns.length) : 0;
      const fromTable = sizeRound(rng, r.kind, r.stage, scale);
      if (r.kind === 'priced') r.size = Math.max(fromTable, nice((avgBurn / 100) * 24) * 100);
      else if (r.kind === 'note')
        r.size = nice((lastPricedSize(rounds, r.date) / 100) * rng.between(0.15, 0.25)) * 100;
      else r.size = fromTable;
      if (this.model === 'climate' && r.kind === 'priced' && r.stage !== 'Seed') {
        r.debt = nice((r.size / 100) * rng.between(0.2, 0.35)) * 100;
        this.longTermDebt += r.debt;
      }
      inflow += r.size + r.debt;
    }
    return inflow;
  }

  /**
   * Team: spend toward a target runway (to the next round plus a margin, else 30 months), hiring
   * in steps no faster than the business grows and cutting when the money will not last.
   */
  private adjustTeam(k: number, month: Month, declining: boolean, growth: number, inflow: number): void {
    const { rng, books, c, headcount } = this;
    const next = this.nextRoundAfter(month.end);
    const targetRunway = declining
      ? Math.max(2, monthsBetween(month.start, this.spec.endDate!) + 2)
      : next
        ? Math.max(8, monthsBetween(month.start, next.date) + 5)
        : 30;
    const lastRevenue = books.length > 0 ? books[books.length - 1]!.revenue / 100 : this.revenueTrend;
    const affordable =
      ((this.cash + inflow) / 100 / targetRunway -
        c.gna -
        lastRevenue * c.marketing +
        lastRevenue * (this.model === 'biotech' ? 0 : this.grossMarginAt(k))) /
      this.perHead(k);
    if (affordable > headcount * 1.03 && !declining && rng.chance(0.5)) {
      // Freshly funded teams hire faster.
      const flush = affordable > headcount * 2 ? 2 : 1;
      const pace = Math.max(0.03, growth * 2) * flush * rng.between(0.6, 1.4);
      this.headcount += Math.max(1, Math.round(Math.min(headcount * pace, (affordable - headcount) * 0.5)));
    } else if (affordable < headcount * 0.85 && (k - this.lastLayoff >= 6 || affordable < headcount * 0.6)) {
      this.headcount = Math.max(2, Math.round(Math.max(affordable, headcount * 0.6)));
      this.lastLayoff = k;
    }
  }

  /** Revenue (for SaaS from the ARR movements), customers and active users. */
  private sell(month: Month, declining: boolean, growth: number): Sales {
    const { rng, c, model } = this;
    const calendar = month.month - 1;
    const sales: Sales = {
      revenue: 0,
      newLogo: 0,
      expansion: 0,
      contraction: 0,
      churned: 0,
      reactivation: 0,
    };
    if (model === 'saas') {
      const a = this.arr / 100;
      const churnNow = c.churnRate * (declining ? 2.5 : 1);
      sales.expansion = wholeCents(a * c.expansionRate * rng.between(0.6, 1.4));
      sales.contraction = wholeCents(a * c.contractionRate * rng.between(0.5, 1.5));
      sales.churned = wholeCents(a * churnNow * rng.between(0.4, 1.6));
      sales.reactivation = c.reactivates && rng.chance(0.5) ? wholeCents(a * rng.between(0, 0.002)) : 0;
      const needed =
        a * growth + (sales.churned + sales.contraction - sales.expansion - sales.reactivation) / 100;
      sales.newLogo = wholeCents(Math.max(0, needed * NEW_LOGO_SEASON[calendar]! * rng.between(0.8, 1.2)));
      const before = this.arr;
      const netNew = sales.newLogo + sales.expansion + sales.reactivation - sales.contraction - sales.churned;
      this.arr += netNew;
      const subscription = (before + this.arr) / 2 / 12;
      const services = subscription * c.servicesShare * c.season[calendar]! * rng.between(0.7, 1.3);
      sales.revenue = Math.round(subscription + services);
      this.customers = Math.max(1, this.customers + Math.round(netNew / 100 / c.acv + rng.normal(0, 0.6)));
    } else if (model !== 'biotech') {
      this.revenueTrend *= 1 + growth;
      sales.revenue = cents(this.revenueTrend * c.season[calendar]! * (1 + rng.normal(0, 0.025)));
    }
    this.activeUsers = Math.max(
      10,
      Math.round((sales.revenue / 100) * c.usersPerRevenue * 12 * (1 + rng.normal(0, 0.02))),
    );
    return sales;
  }

  /** Cost of goods, operating expenses, capex and depreciation (which move the fixed assets). */
  private spend(k: number, month: Month, declining: boolean, inflow: number, revenue: number): Costs {
    const { rng, c, model, headcount } = this;
    const gm = Math.min(0.9, Math.max(0.05, this.grossMarginAt(k) + rng.normal(0, 0.012)));
    const cogs = model === 'biotech' ? 0 : Math.round(revenue * (1 - gm));
    const grossProfit = revenue - cogs;
    const wage = 1.04 ** (k / 12);
    const research = model === 'biotech' ? cents(headcount * c.costPerFte * rng.between(0.8, 1.6)) : 0;
    let opex =
      cents((headcount * c.costPerFte * wage + c.gna * (1 + headcount / 40)) * rng.between(0.97, 1.03)) +
      Math.round(revenue * c.marketing * rng.between(0.85, 1.15)) +
      research;
    // A failing company spends what is left on a last growth push before it winds down.
    if (declining) {
      const left = Math.max(1, monthsBetween(month.start, this.spec.endDate!) + 1);
      const push = (this.cash + inflow) / left - (opex - grossProfit);
      if (push > 0) opex += Math.round(push * rng.between(0.75, 0.95));
    }
    const ebitda = grossProfit - opex;
    const capex = Math.round(opex * c.capexShare * rng.between(0.5, 1.5));
    const depreciation = Math.round(this.ppe / 48);
    this.ppe = this.ppe + capex - depreciation;
    return { cogs, grossProfit, opex, ebitda, capex, depreciation };
  }

  /** Working capital, interest, burn and cash flows; the month's book. */
  private closeMonth(month: Month, inflow: number, sales: Sales, costs: Costs): void {
    const { rng, c, model, cash } = this;
    const { revenue } = sales;
    const { cogs, opex, ebitda, capex } = costs;
    let workingCapital = Math.round(revenue * rng.normal(0, 0.02));
    const rate = month.key < '2022-07' ? 0.0005 : month.key < '2023-01' ? 0.002 : 0.0035;
    const interestIncome = Math.round(Math.max(0, cash) * rate);
    let netBurn = capex - ebitda - workingCapital - interestIncome;
    // A company about to run dry stretches its payables rather than go below zero.
    if (netBurn > cash + inflow) {
      netBurn = cash + inflow - Math.round(Math.max(0, cash) * 0.1);
      workingCapital = capex - ebitda - interestIncome - netBurn;
      this.squeezes++;
    }
    const cfo = ebitda + workingCapital + interestIncome;
    const cfi = -capex;
    const cff = inflow;
    this.cash = cash + cfo + cfi + cff;
    this.burns.push(netBurn);
    const avgBurn = this.burns.slice(-3).reduce((a, b) => a + b, 0) / Math.min(3, this.burns.length);
    const runway = avgBurn > 0 ? this.cash / avgBurn : null;

    this.books.push({
      month,
      date: month.end,
      revenue,
      cogs,
      grossProfit: costs.grossProfit,
      opex,
      ebitda,
      depreciation: costs.depreciation,
      interestIncome,
      netIncome: ebitda - costs.depreciation + interestIncome,
      capex,
      workingCapital,
      netBurn,
      cfo,
      cfi,
      cff,
      cash: this.cash,
      runway,
      headcount: this.headcount,
      ppe: this.ppe,
      longTermDebt: this.longTermDebt,
      receivables: Math.round((revenue * c.dso) / 30),
      payables: Math.round(((cogs + opex * 0.3) * c.dpo) / 30),
      shortTermInvestments: model === 'biotech' ? Math.round(this.cash * 0.35) : 0,
      arr: this.arr,
      newLogo: sales.newLogo,
      expansion: sales.expansion,
      contraction: sales.contraction,
      churned: sales.churned,
      reactivation: sales.reactivation,
      netNewArr: sales.newLogo + sales.expansion + sales.reactivation - sales.contraction - sales.churned,
      customers: this.customers,
      activeUsers: this.activeUsers,
    });
  }

  /** Valuations: pre-money a multiple of the round size, and a step up from the last post-money. */
  private valueRounds(): void {
    const { rng } = this;
    let previousPost = 0;
    for (const r of this.rounds) {
      if (r.kind === 'priced') {
        const fromSize = (r.size / 100) * rng.between(...STAGES[r.stage].preMultiple);
        const stepUp = (previousPost / 100) * rng.between(1.3, 2.2);
        r.preMoney = nice(Math.max(fromSize, stepUp), 3) * 100;
        previousPost = r.preMoney + r.size;
      } else if (r.kind === 'ipo') {
        r.preMoney = nice((previousPost / 100) * rng.between(1.8, 2.6), 3) * 100;
        previousPost = r.preMoney + r.size;
      }
    }
  }
}

export function simulateCompany(
  firm: FirmSpec,
  spec: CompanySpec,
  rng: Rng,
  newId: (prefix: string) => string,
): CompanyModel {
  return new CompanySimulation(firm, spec, rng, newId).run();
}

function lastPricedSize(rounds: Round[], date: string): number {
  const priced = rounds.filter((r) => r.kind === 'priced' && r.date < date && r.size > 0);
  return priced.length > 0 ? priced[priced.length - 1]!.size : 0;
}
