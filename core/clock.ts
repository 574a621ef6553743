export interface Clock {
  now(): Date;
}

export const systemClock: Clock = { now: () => new Date() };

/**
 * The last day of the month of `now` (UTC), YYYY-MM-DD: the newest date actual (non-budget) data may
 * have, and the newest month a firm-wide "latest month" may be.
 */
export function endOfMonth(now: Date): string {
  return new Date(Date.UTC(now.getUTCFullYear(), now.getUTCMonth() + 1, 0)).toISOString().slice(0, 10);
}

/** Today's date in UTC, YYYY-MM-DD. */
export function utcDate(now: Date): string {
  return now.toISOString().slice(0, 10);
}
