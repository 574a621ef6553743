// The one place the collection loop hands mail to the outbound mail outbox: a request when a report
// is opened, a reminder, a confirmation after a submission. Called inside the write's transaction,
// so a mail exists exactly when the write that caused it committed.
import type { Repos } from '../db/repos/index.ts';
import {
  confirmationMessage,
  type MailValues,
  type RenderedMail,
  reminderMessage,
  requestMessage,
} from '../mail/templates.ts';

export type { MailValues } from '../mail/templates.ts';

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

const TEMPLATES: Record<LoopMail['kind'], (v: MailValues) => RenderedMail> = {
  request: requestMessage,
  reminder: reminderMessage,
  confirmation: confirmationMessage,
};

/** Renders and queues messages in the caller's transaction, due at once (`at`, the write's time). */
export async function queueRequestMail(repos: Repos, mails: readonly LoopMail[], at: string): Promise<void> {
  await repos.mail.enqueue(
    ...mails.map((m) => ({
      firmId: m.firmId,
      kind: m.kind,
      to: m.to,
      toName: m.toName,
      ...TEMPLATES[m.kind](m.values),
      link: m.values.link,
      dedupeKey: m.dedupeKey,
      reportId: m.reportId,
      requestId: m.requestId,
      queuedAt: at,
    })),
  );
}

/** A category name as a founder reads it: `cash_in_bank` is "Cash in bank"; custom metrics keep theirs. */
export function itemLabel(name: string, isStandard: boolean): string {
  if (!isStandard) return name;
  const words = name.replace(/_/g, ' ');
  return words.charAt(0).toUpperCase() + words.slice(1);
}
