// When a request's reminders fall due. A request's schedule is a list of days relative to its due
// date (-7: a week before, 0: on it, 7: a week after). A pass sends only the latest step that has
// come: a pass that did not run for a while sends one reminder, not every step it missed.

export type ReminderKind = 'before' | 'on' | 'after';

export interface ReminderStep {
  /** Days from the due date; the step's name in a reminder's dedupe key. */
  days: number;
  kind: ReminderKind;
  /** The day the step falls on, YYYY-MM-DD. */
  date: string;
}

const DAY_MS = 86_400_000;

function plusDays(date: string, days: number): string {
  return new Date(Date.parse(`${date}T00:00:00Z`) + days * DAY_MS).toISOString().slice(0, 10);
}

export function reminderKindOf(days: number): ReminderKind {
  return days < 0 ? 'before' : days === 0 ? 'on' : 'after';
}

/**
 * The step of `schedule` due on `today` (all dates YYYY-MM-DD): the latest one on or before today, if it
 * falls after the day the request was sent (the request itself is fresher than an earlier reminder).
 */
export function dueReminderStep(
  schedule: readonly number[],
  dueDate: string,
  sentDate: string,
  today: string,
): ReminderStep | undefined {
  const steps = [...new Set(schedule)]
    .map((days) => ({ days, kind: reminderKindOf(days), date: plusDays(dueDate, days) }))
    .filter((s) => s.date <= today)
    .sort((a, b) => a.days - b.days);
  const latest = steps.at(-1);
  return latest && latest.date > sentDate.slice(0, 10) ? latest : undefined;
}

/** The dedupe key of one reminder: one report, one step of its schedule, one contact. */
export function reminderKey(reportId: string, days: number, contactId: string): string {
  return `reminder:${reportId}:${days}:${contactId}`;
}
