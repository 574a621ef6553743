import type { Knex } from 'knex';
import { markedLink } from '../../core/mail-link.ts';
import { newId } from '../ids.ts';

export type MailKind = 'request' | 'reminder' | 'confirmation';

/** pending: to send · sent · failed: out of attempts · held: kept for the operator (no SMTP configured). */
export type MailStatus = 'pending' | 'sent' | 'failed' | 'held';

/** One message to queue. */
export interface NewMail {
  firmId: string;
  kind: MailKind;
  to: string;
  toName?: string;
  subject: string;
  text: string;
  html: string;
  /** Queueing a second message with a key already queued does nothing. */
  dedupeKey: string;
  reportId?: string;
  requestId?: string;
  /** The founder link the bodies carry; by default the one the templates mark in `html`. */
  link?: string;
  /** When it was queued (ISO 8601); now by default. */
  queuedAt?: string;
}

export interface MailRow {
  id: string;
  firm_id: string;
  kind: MailKind;
  to_address: string;
  to_name: string | null;
  subject: string;
  text_body: string;
  html_body: string;
  link: string | null;
  status: MailStatus;
  attempts: number;
  next_attempt_at: string;
  claim: string | null;
  claimed_until: string | null;
  last_attempt_at: string | null;
  last_error: string | null;
  sent_at: string | null;
  message_id: string | null;
  dedupe_key: string;
  report_id: string | null;
  request_id: string | null;
  created_at: string;
  updated_at: string;
}

export interface MailFilter {
  /** One firm's messages; every firm's without it (the operator's view). */
  firmId?: string;
  statuses?: readonly MailStatus[];
  limit: number;
}

// Rows are inserted in slices: a reminder pass over many companies queues thousands at once.
const INSERT_SLICE = 200;

/** The outbox of outbound mail. `enqueue` runs inside the transaction of the write that causes the mail. */
export function mailRepo(db: Knex) {
  const mail = () => db('outbound_mail');
  return {
    /** Queues messages as pending; a message whose dedupe key is queued already is left out. */
    async enqueue(...messages: NewMail[]): Promise<void> {
      const rows = messages.map((m) => {
        const at = m.queuedAt ?? new Date().toISOString();
        return {
          id: newId(),
          firm_id: m.firmId,
          kind: m.kind,
          to_address: m.to,
          to_name: m.toName ?? null,
          subject: m.subject,
          text_body: m.text,
          html_body: m.html,
          link: m.link ?? markedLink(m.html) ?? null,
          status: 'pending',
          attempts: 0,
          next_attempt_at: at,
          dedupe_key: m.dedupeKey,
          report_id: m.reportId ?? null,
          request_id: m.requestId ?? null,
          created_at: at,
          updated_at: at,
        };
      });
      for (let i = 0; i < rows.length; i += INSERT_SLICE)
        await mail()
          .insert(rows.slice(i, i + INSERT_SLICE))
          .onConflict('dedupe_key')
          .ignore();
    },

    /** One message, of one firm when `firmId` is given. */
    async get(id: string, firmId?: string): Promise<MailRow | undefined> {
      const q = mail().where({ id });
      if (firmId !== undefined) q.where({ firm_id: firmId });
      return (await q.first()) as MailRow | undefined;
    },

    /** Messages newest first: a firm's (for its page), or every firm's (for the operator). */
    async list(filter: MailFilter): Promise<MailRow[]> {
      const q = mail();
      if (filter.firmId !== undefined) q.where('firm_id', filter.firmId);
      if (filter.statuses?.length) q.whereIn('status', filter.statuses as MailStatus[]);
      return (await q.orderBy('created_at', 'desc').orderBy('id', 'desc').limit(filter.limit)) as MailRow[];
    },
  };
}
export type MailRepo = ReturnType<typeof mailRepo>;
