// The one place the collection loop hands mail to the outbound mail outbox: a request when a report
// is opened, a reminder, a confirmation after a submission. Called inside the write's transaction,
// so a mail exists exactly when the write that caused it committed.
import type { Repos } from '../db/repos/index.ts';

/** What a request, reminder or confirmation says. */
export interface MailValues {
  firmName: string;
  companyName: string;
  contactName: string;
  requestName: string;
  period: string;
  dueDate: string;
  link: string;
  metrics: { name: string; optional: boolean }[];
  documents: { name: string; optional: boolean }[];
  reminderKind?: 'before' | 'on' | 'after';
  submittedAt?: string;
}

/** One message to one contact; `dedupeKey` makes queueing it twice send it once. */
export interface LoopMail {
  firmId: string;
  kind: 'request' | 'reminder' | 'confirmation';
  to: string;
  toName: string;
  values: MailValues;
  dedupeKey: string;
  reportId: string;
  requestId: string;
}

/** Queues messages in the caller's transaction. */
export async function queueRequestMail(_repos: Repos, mails: readonly LoopMail[]): Promise<void> {
  if (mails.length === 0) return;
  // The outbox (with its templates and sender) is not part of this build yet: nothing is queued.
}

/** A category name as a founder reads it: `cash_in_bank` is "Cash in bank"; custom metrics keep theirs. */
export function itemLabel(name: string, isStandard: boolean): string {
  if (!isStandard) return name;
  const words = name.replace(/_/g, ' ');
  return words.charAt(0).toUpperCase() + words.slice(1);
}
