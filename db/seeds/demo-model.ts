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

export function simulateCompany(
  firm: FirmSpec,
  spec: CompanySpec,
  rng: Rng,
  newId: (prefix: string) => string,
): CompanyModel {
  const scale = 1 / USD_ANCHOR[spec.currency]!;
  const months = reportingMonths(spec, firm.months);
  const start = months[0]!;
  const model = spec.model;

  // Rounds: those before the data sized from the stage table, the others in the simulation.
  const rounds: Round[] = spec.rounds.map((plan) => ({
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
  const before = rounds.filter((r) => r.date < start.start);
  for (const r of before) r.size = sizeRound(rng, r.kind, r.stage, scale);
  const lastBefore = before[before.length - 1];
  const startStage: Stage = (() => {
    const priced = before.filter((r) => r.kind === 'priced');
    return priced.length > 0 ? priced[priced.length - 1]!.stage : 'Pre-seed';
  })();
  const terms = STAGES[startStage];

  // Company character.
  const quality = rng.between(0.75, 1.3);
  const season = SEASON[model];
  const costPerFte = (COST_PER_FTE[spec.city] ?? 10_000) * scale;
  const gna = 15_000 * scale;
  const [gmLow, gmHigh] = GROSS_MARGIN[model];
  const gm0 = rng.between(gmLow, gmHigh);
  const gmDrift = rng.between(0.01, 0.06);
  const marketing = MARKETING[model] * rng.between(0.8, 1.2);
  const capexShare = rng.between(...CAPEX[model]);
  const dso = rng.between(30, 55);
  const dpo = rng.between(25, 45);
  const churnRate = rng.between(0.005, 0.012);
  const contractionRate = rng.between(0.002, 0.005);
  const expansionRate = rng.between(0.008, 0.02);
  const reactivates = rng.chance(0.6);
  const servicesShare = rng.between(0.03, 0.1);
  const acv = rng.between(8_000, 40_000) * scale;
  const usersPerRevenue = rng.between(0.02, 0.08) / scale;
  const declineFrom = spec.status === 'written-off' && spec.endDate ? addMonths(spec.endDate, -15) : null;

  let revenueTrend = model === 'biotech' ? 0 : terms.revenue * quality * scale;
  let arr = model === 'saas' ? wholeCents(revenueTrend * 12 * (1 - servicesShare)) : 0;
  if (arr > 0) revenueTrend = arr / 100 / 12 / (1 - servicesShare);

  const grossMarginAt = (k: number) => gm0 + (gmDrift * k) / 60;
  // Monthly cost of one more employee, with the overheads and lab or plant spend that scale with the team.
  const perHead = (k: number) =>
    (costPerFte * 1.04 ** (k / 12) + gna / 40) * (model === 'biotech' ? 2.2 : 1) * (1 + capexShare);
  const burnAt = (hc: number, rev: number, k: number) =>
    hc * perHead(k) + rev * marketing + gna - rev * (model === 'biotech' ? 0 : grossMarginAt(k));
  const nextRoundAfter = (date: string) => rounds.find((r) => r.date > date);

  // Cash at the start: enough to reach the next round with a few months to spare, or what is left
  // of the last round when no other is coming.
  let headcount = Math.max(3, Math.round(terms.headcount * rng.between(0.8, 1.2)));
  const firstNext = nextRoundAfter(start.start);
  const leftOfLast = lastBefore
    ? lastBefore.size * Math.min(0.95, Math.max(0.3, 1 - monthsBetween(lastBefore.date, start.start) / 30))
    : Number.POSITIVE_INFINITY;
  const toNext = firstNext ? monthsBetween(start.start, firstNext.date) + rng.int(4, 8) : 24;
  let cash = Math.round(
    Math.min(leftOfLast, cents(Math.max(burnAt(headcount, revenueTrend, 0), 10_000 * scale) * toNext)),
  );
  while (headcount > 3 && burnAt(headcount, revenueTrend, 0) * toNext > cash / 100) headcount--;

  let ppe =
    model === 'climate' || model === 'biotech'
      ? cents(headcount * costPerFte * 2)
      : cents(headcount * 1500 * scale);
  let longTermDebt = 0;
  let lastLayoff = -99;
  let customers = Math.max(3, Math.round(arr / 100 / acv));
  let activeUsers = 0;
  let previousPost = 0;
  const burns: number[] = [];
  const books: MonthBook[] = [];
  let squeezes = 0;

  for (let k = 0; k < months.length; k++) {
    const month = months[k]!;
    const calendar = month.month - 1;
    const declining = declineFrom !== null && month.start >= declineFrom;
    const slowdown = month.key >= '2022-07' && month.key <= '2023-12' ? 0.55 : 1;
    const floor = 0.008;
    let growth = (floor + (terms.growth - floor) * 0.972 ** k) * quality * slowdown;
    if (declining) growth = -0.03;

    // Financing closing this month: size it from the burn of the last quarter.
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
      if (model === 'climate' && r.kind === 'priced' && r.stage !== 'Seed') {
        r.debt = nice((r.size / 100) * rng.between(0.2, 0.35)) * 100;
        longTermDebt += r.debt;
      }
      inflow += r.size + r.debt;
    }

    // Team: spend toward a target runway (to the next round plus a margin, else 30 months), hiring
    // in steps no faster than the business grows and cutting when the money will not last.
    const next = nextRoundAfter(month.end);
    const targetRunway = declining
      ? Math.max(2, monthsBetween(month.start, spec.endDate!) + 2)
      : next
        ? Math.max(8, monthsBetween(month.start, next.date) + 5)
        : 30;
    const lastRevenue = books.length > 0 ? books[books.length - 1]!.revenue / 100 : revenueTrend;
    const affordable =
      ((cash + inflow) / 100 / targetRunway -
        gna -
        lastRevenue * marketing +
        lastRevenue * (model === 'biotech' ? 0 : grossMarginAt(k))) /
      perHead(k);
    if (affordable > headcount * 1.03 && !declining && rng.chance(0.5)) {
      // Freshly funded teams hire faster.
      const flush = affordable > headcount * 2 ? 2 : 1;
      const pace = Math.max(0.03, growth * 2) * flush * rng.between(0.6, 1.4);
      headcount += Math.max(1, Math.round(Math.min(headcount * pace, (affordable - headcount) * 0.5)));
    } else if (affordable < headcount * 0.85 && (k - lastLayoff >= 6 || affordable < headcount * 0.6)) {
      headcount = Math.max(2, Math.round(Math.max(affordable, headcount * 0.6)));
      lastLayoff = k;
    }

    // Revenue.
    let newLogo = 0;
    let expansion = 0;
    let contraction = 0;
    let churned = 0;
    let reactivation = 0;
    let revenue = 0;
    if (model === 'saas') {
      const a = arr / 100;
      const churnNow = churnRate * (declining ? 2.5 : 1);
      expansion = wholeCents(a * expansionRate * rng.between(0.6, 1.4));
      contraction = wholeCents(a * contractionRate * rng.between(0.5, 1.5));
      churned = wholeCents(a * churnNow * rng.between(0.4, 1.6));
      reactivation = reactivates && rng.chance(0.5) ? wholeCents(a * rng.between(0, 0.002)) : 0;
      const needed = a * growth + (churned + contraction - expansion - reactivation) / 100;
      newLogo = wholeCents(Math.max(0, needed * NEW_LOGO_SEASON[calendar]! * rng.between(0.8, 1.2)));
      const before = arr;
      const netNew = newLogo + expansion + reactivation - contraction - churned;
      arr += netNew;
      const subscription = (before + arr) / 2 / 12;
      const services = subscription * servicesShare * season[calendar]! * rng.between(0.7, 1.3);
      revenue = Math.round(subscription + services);
      customers = Math.max(1, customers + Math.round(netNew / 100 / acv + rng.normal(0, 0.6)));
    } else if (model !== 'biotech') {
      revenueTrend *= 1 + growth;
      revenue = cents(revenueTrend * season[calendar]! * (1 + rng.normal(0, 0.025)));
    }
    activeUsers = Math.max(
      10,
      Math.round((revenue / 100) * usersPerRevenue * 12 * (1 + rng.normal(0, 0.02))),
    );

    // Costs.
    const gm = Math.min(0.9, Math.max(0.05, grossMarginAt(k) + rng.normal(0, 0.012)));
    const cogs = model === 'biotech' ? 0 : Math.round(revenue * (1 - gm));
    const grossProfit = revenue - cogs;
    const wage = 1.04 ** (k / 12);
    const research = model === 'biotech' ? cents(headcount * costPerFte * rng.between(0.8, 1.6)) : 0;
    let opex =
      cents((headcount * costPerFte * wage + gna * (1 + headcount / 40)) * rng.between(0.97, 1.03)) +
      Math.round(revenue * marketing * rng.between(0.85, 1.15)) +
      research;
    // A failing company spends what is left on a last growth push before it winds down.
    if (declining) {
      const left = Math.max(1, monthsBetween(month.start, spec.endDate!) + 1);
      const push = (cash + inflow) / left - (opex - grossProfit);
      if (push > 0) opex += Math.round(push * rng.between(0.75, 0.95));
    }
    const ebitda = grossProfit - opex;
    const capex = Math.round(opex * capexShare * rng.between(0.5, 1.5));
    const depreciation = Math.round(ppe / 48);
    ppe = ppe + capex - depreciation;
    let workingCapital = Math.round(revenue * rng.normal(0, 0.02));
    const rate = month.key < '2022-07' ? 0.0005 : month.key < '2023-01' ? 0.002 : 0.0035;
    const interestIncome = Math.round(Math.max(0, cash) * rate);
    let netBurn = capex - ebitda - workingCapital - interestIncome;
    // A company about to run dry stretches its payables rather than go below zero.
    if (netBurn > cash + inflow) {
      netBurn = cash + inflow - Math.round(Math.max(0, cash) * 0.1);
      workingCapital = capex - ebitda - interestIncome - netBurn;
      squeezes++;
    }
    const cfo = ebitda + workingCapital + interestIncome;
    const cfi = -capex;
    const cff = inflow;
    cash = cash + cfo + cfi + cff;
    burns.push(netBurn);
    const avgBurn = burns.slice(-3).reduce((a, b) => a + b, 0) / Math.min(3, burns.length);
    const runway = avgBurn > 0 ? cash / avgBurn : null;

    const receivables = Math.round((revenue * dso) / 30);
    const payables = Math.round(((cogs + opex * 0.3) * dpo) / 30);
    const shortTermInvestments = model === 'biotech' ? Math.round(cash * 0.35) : 0;

    books.push({
      month,
      date: month.end,
      revenue,
      cogs,
      grossProfit,
      opex,
      ebitda,
      depreciation,
      interestIncome,
      netIncome: ebitda - depreciation + interestIncome,
      capex,
      workingCapital,
      netBurn,
      cfo,
      cfi,
      cff,
      cash,
      runway,
      headcount,
      ppe,
      longTermDebt,
      receivables,
      payables,
      shortTermInvestments,
      arr,
      newLogo,
      expansion,
      contraction,
      churned,
      reactivation,
      netNewArr: newLogo + expansion + reactivation - contraction - churned,
      customers,
      activeUsers,
    });
  }

  // Rounds after the data (none in the demo) keep a size from the stage table.
  for (const r of rounds) if (r.size === 0) r.size = sizeRound(rng, r.kind, r.stage, scale);

  // Valuations: pre-money a multiple of the round size, and a step up from the last post-money.
  for (const r of rounds) {
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
  return { spec, rounds, books, startStage, squeezes };
}

function lastPricedSize(rounds: Round[], date: string): number {
  const priced = rounds.filter((r) => r.kind === 'priced' && r.date < date && r.size > 0);
  return priced.length > 0 ? priced[priced.length - 1]!.size : 0;
}
