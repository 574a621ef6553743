/** The states of an information request: drafted, sent to its companies (taking answers), closed. */
export const REQUEST_STATUSES = ['draft', 'sent', 'closed'] as const;
export type RequestStatus = (typeof REQUEST_STATUSES)[number];

/**
 * The states of a company's report: nothing saved yet, a draft saved, or submitted with every
 * required item (completed) or without some (partially-complete).
 */
export const REPORT_STATUSES = ['completed', 'partially-complete', 'in-progress', 'not-started'] as const;
export type ReportStatus = (typeof REPORT_STATUSES)[number];

/** The states of one item of a report: nothing given, given in a draft, or submitted. */
export const ITEM_STATUSES = ['missing', 'in-progress', 'completed'] as const;
export type ItemStatus = (typeof ITEM_STATUSES)[number];

/** The period a requested metric's value covers; point_in_time for stocks such as cash in bank. */
export const TIME_PERIODS = ['month', 'quarter', 'year', 'point_in_time'] as const;
export type TimePeriod = (typeof TIME_PERIODS)[number];

/** Reminders a week before the due date, on it, and a week after, unless the request says otherwise. */
export const DEFAULT_REMINDER_DAYS: readonly number[] = [-7, 0, 7];

/** Submitted after the due date (compared by UTC date), or not submitted and the due date has passed. */
export function isLate(submittedAt: string | null, dueDate: string, today: string): boolean {
  return submittedAt === null ? today > dueDate : submittedAt.slice(0, 10) > dueDate;
}

/** Whole days from `from` to `to`, both YYYY-MM-DD. */
export function daysBetween(from: string, to: string): number {
  return Math.round((Date.parse(`${to}T00:00:00Z`) - Date.parse(`${from}T00:00:00Z`)) / 86_400_000);
}

/** YYYY-MM-DD plus `days`. */
export function addDays(date: string, days: number): string {
  return new Date(Date.parse(`${date}T00:00:00Z`) + days * 86_400_000).toISOString().slice(0, 10);
}

/** A stored reminder schedule (a JSON array of days); a request stored before schedules existed has none. */
export function parseReminderDays(stored: string | null | undefined): number[] {
  if (!stored) return [];
  try {
    const days = JSON.parse(stored) as unknown;
    return Array.isArray(days) ? days.filter((d): d is number => Number.isInteger(d)) : [];
  } catch {
    return [];
  }
}
