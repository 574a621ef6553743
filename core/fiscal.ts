/** Months of the year, 1 to 12, whose last day ends a period of `step` months ending with `lastMonth`. */
function periodMonths(lastMonth: number, step: number): number[] {
  const months: number[] = [];
  for (let m = lastMonth; months.length < 12 / step; m -= step) months.push(((m - 1 + 12) % 12) + 1);
  return months.sort((a, b) => a - b);
}

/** 'MM-DD' of a month's last day; February ends on the 28th or, in leap years, the 29th. */
function monthEnds(month: number): string[] {
  const mm = String(month).padStart(2, '0');
  if (month === 2) return ['02-28', '02-29'];
  const day = new Date(Date.UTC(2001, month, 0)).getUTCDate();
  return [`${mm}-${day}`];
}

/**
 * The 'MM-DD' endings of the dates that close a period of each cadence in a company's fiscal calendar,
 * given its fiscal year end (MM-DD): every month end for month, the month ends three or six months
 * apart from the year end for quarter and half_year, the year end's month end for year. A cadence
 * not listed (point_in_time, day, week) fits any date. A '02-28' in a leap year is taken as aligned.
 */
export function fiscalPeriodEnds(fiscalYearEnd: string): PeriodEnds {
  const parsed = Number(/^(\d{1,2})[-/]/.exec(fiscalYearEnd)?.[1]);
  const lastMonth = parsed >= 1 && parsed <= 12 ? parsed : 12;
  let found = periodEndsByLastMonth.get(lastMonth);
  if (!found) {
    const ends = (step: number) => Object.freeze(periodMonths(lastMonth, step).flatMap(monthEnds));
    found = Object.freeze({ month: ends(1), quarter: ends(3), half_year: ends(6), year: ends(12) });
    periodEndsByLastMonth.set(lastMonth, found);
  }
  return found;
}

/** The period endings of each cadence; one frozen object per fiscal year end month, the same at every call. */
export type PeriodEnds = Readonly<Record<string, readonly string[]>>;
const periodEndsByLastMonth = new Map<number, PeriodEnds>();
