// The internal rate of return of dated cash flows (XIRR, actual/365), as spreadsheets compute it.

export interface DatedFlow {
  /** Negative when money goes out (an investment), positive when it comes back. */
  amount: number;
  /** YYYY-MM-DD. */
  date: string;
}

export type XirrResult = { rate: number; reason: null } | { rate: null; reason: string };

const DAY_MS = 86_400_000;

function years(from: string, to: string): number {
  return (Date.parse(`${to}T00:00:00Z`) - Date.parse(`${from}T00:00:00Z`)) / DAY_MS / 365;
}

/** Net present value of the flows at `rate`, discounted to the first flow's date. */
export function xnpv(rate: number, flows: readonly DatedFlow[]): number {
  const first = flows.map((f) => f.date).sort()[0] ?? '';
  return flows.reduce((total, f) => total + f.amount / (1 + rate) ** years(first, f.date), 0);
}

function derivative(rate: number, flows: readonly DatedFlow[], first: string): number {
  return flows.reduce((total, f) => {
    const t = years(first, f.date);
    return total - (t * f.amount) / (1 + rate) ** (t + 1);
  }, 0);
}

const LOW = -0.999999;

/** Decimal places an IRR is given to (as a fraction: 1e-9 is 0.0000001 %), far below any reported figure. */
export const IRR_DECIMALS = 9;

/** `rate` to IRR_DECIMALS places (never -0). */
function rounded(rate: number): number {
  const scale = 10 ** IRR_DECIMALS;
  return Math.round(rate * scale) / scale + 0;
}

const HIGH = 1e6;

/**
 * The rate at which the flows' NPV is 0: Newton's method from 10 %, and bisection over
 * (-100 %, 10⁸ %) when Newton leaves the domain or does not settle. Null with a reason when the
 * flows cannot have one (no sign change) or no root lies in that range.
 */
export function xirr(flows: readonly DatedFlow[]): XirrResult {
  const live = flows.filter((f) => f.amount !== 0 && Number.isFinite(f.amount));
  if (!live.some((f) => f.amount < 0) || !live.some((f) => f.amount > 0)) {
    return {
      rate: null,
      reason: 'the cash flows have no sign change (an IRR needs money both invested and returned or held)',
    };
  }
  const first = live.map((f) => f.date).sort()[0]!;
  if (live.every((f) => f.date === first)) {
    return { rate: null, reason: 'every cash flow is on the same date, so no time passes to earn a rate' };
  }
  // NPV's rounding error grows with the size of the discounted flows, so "zero" is relative to it.
  const tolerance = (rate: number) =>
    xnpv(
      rate,
      live.map((f) => ({ amount: Math.abs(f.amount), date: f.date })),
    ) * 1e-12;
  // The solver's last-bit noise never shows (break-even flows answer 0, not -2.5e-15): the rate is given
  // to IRR_DECIMALS places, unless so near -100 % that the rounded rate leaves an NPV above a
  // billionth of the flows' present size (a thousand times the root's own tolerance).
  const found = (rate: number): XirrResult => {
    const round = rounded(rate);
    const keep = round !== rate && Math.abs(xnpv(round, live)) > tolerance(round) * 1e3;
    return { rate: keep ? rate : round, reason: null };
  };

  let rate = 0.1;
  for (let i = 0; i < 100; i++) {
    const value = xnpv(rate, live);
    if (Math.abs(value) <= tolerance(rate)) return found(rate);
    const slope = derivative(rate, live, first);
    if (slope === 0 || !Number.isFinite(slope)) break;
    const next = rate - value / slope;
    if (!Number.isFinite(next) || next <= LOW) break;
    if (Math.abs(next - rate) < 1e-12) return found(next);
    rate = next;
  }

  // Newton failed: bisect over the whole domain, where NPV is continuous.
  let lo = LOW;
  let hi = HIGH;
  let fLo = xnpv(lo, live);
  const fHi = xnpv(hi, live);
  if (!Number.isFinite(fLo) || Math.sign(fLo) === Math.sign(fHi)) {
    return { rate: null, reason: 'no rate between -100 % and 10⁸ % makes the net present value 0' };
  }
  for (let i = 0; i < 300; i++) {
    const mid = (lo + hi) / 2;
    const fMid = xnpv(mid, live);
    if (Math.abs(fMid) <= tolerance(mid) || hi - lo < 1e-15 * Math.max(1, Math.abs(mid))) return found(mid);
    if (Math.sign(fMid) === Math.sign(fLo)) {
      lo = mid;
      fLo = fMid;
    } else {
      hi = mid;
    }
  }
  return found((lo + hi) / 2);
}
