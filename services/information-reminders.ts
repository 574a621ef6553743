// The information loop's turn of the scheduled reminder pass, for one firm: for each sent request whose
// schedule has a step due, a reminder to every contact of each unsubmitted report (remindForStep), then
// the late reports announced once (markLate). Runs inside the pass's transaction, under the firm's lock.
import { parseReminderDays } from '../core/information.ts';
import { dueReminderStep } from '../core/reminder-schedule.ts';
import { linkExpiry } from './founder-links.ts';
import { markLate, remindForStep } from './information-sending.ts';
import type { RemindFirm } from './reminders.ts';

/** Where links point and how long they last; read at each pass (PUBLIC_URL is known only once listening). */
export interface ReminderSettings {
  publicUrl: string;
  founderLinkDaysAfterDue: number;
}

/** The reminder pass's turn for one firm over the information loop. */
export function informationReminders(settings: () => ReminderSettings): RemindFirm {
  return async (repos, firm, now) => {
    const at = now.toISOString();
    const today = at.slice(0, 10);
    const { publicUrl, founderLinkDaysAfterDue } = settings();
    let reminders = 0;
    for (const row of await repos.informationWrites.sentRequests(firm.id)) {
      const sentOn = row.sent_at ?? row.created_at;
      const step = dueReminderStep(parseReminderDays(row.reminder_days), row.due_date, sentOn, today);
      // A link made now would already have expired: the firm must extend the request or close it.
      if (!step || linkExpiry(row.due_date, founderLinkDaysAfterDue) <= at) continue;
      reminders += await remindForStep(
        { repos, publicUrl, founderLinkDaysAfterDue },
        firm,
        row.id,
        step,
        now,
      );
    }
    const late = await markLate({ repos, clock: { now: () => now } }, firm);
    return { reminders, late: late.length };
  };
}
