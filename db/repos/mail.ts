import type { Knex } from 'knex';
import { type MailBodies, markedLink } from '../../core/mail-link.ts';
import { newId } from '../ids.ts';
import { isPostgres } from '../knex.ts';

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

/** A message a node holds for the length of its lease. */
export interface ClaimedMail {
  id: string;
  claim: string;
  /** This attempt's number, from 1. */
  attempts: number;
  to_address: string;
  to_name: string | null;
  subject: string;
  text_body: string;
  html_body: string;
  link: string | null;
}

/** How an attempt ended. */
export type SendOutcome =
  | { ok: true; at: string; messageId: string; bodies: MailBodies }
  | { ok: false; at: string; error: string; retryAt: string | null };

const CLAIMED_COLUMNS = [
  'id',
  'attempts',
  'to_address',
  'to_name',
  'subject',
  'text_body',
  'html_body',
  'link',
] as const;

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

    /** The keys among `keys` queued already: what a pass leaves out before it makes a message again. */
    async queuedKeys(keys: readonly string[]): Promise<Set<string>> {
      const found = new Set<string>();
      for (let i = 0; i < keys.length; i += 500) {
        const rows = (await mail()
          .whereIn('dedupe_key', keys.slice(i, i + 500) as string[])
          .select('dedupe_key')) as { dedupe_key: string }[];
        for (const r of rows) found.add(r.dedupe_key);
      }
      return found;
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

    /** One held message of the firm (when given) back to pending, with its attempts anew; false if none. */
    async release(id: string, at: string, firmId?: string): Promise<boolean> {
      const q = mail().where({ id, status: 'held' });
      if (firmId !== undefined) q.where({ firm_id: firmId });
      const n = await q.update({ status: 'pending', attempts: 0, next_attempt_at: at, updated_at: at });
      return n > 0;
    },

    /** Without SMTP: every pending message no node is sending becomes held, for the operator to read. */
    async holdPending(at: string): Promise<number> {
      return mail()
        .where('status', 'pending')
        .where((w) => w.whereNull('claimed_until').orWhere('claimed_until', '<', at))
        .update({ status: 'held', updated_at: at });
    },

    /**
     * Claims due pending messages for `leaseMs`, counting an attempt. On PostgreSQL the rows are locked with
     * SKIP LOCKED so that nodes take different ones; on SQLite the one writer does the same. A claim whose
     * lease ran out (its node died mid-send) is due again.
     */
    async claim(options: { now: Date; leaseMs: number; limit: number }): Promise<ClaimedMail[]> {
      const at = options.now.toISOString();
      const until = new Date(options.now.getTime() + options.leaseMs).toISOString();
      return db.transaction(async (trx) => {
        const pick = trx('outbound_mail')
          .where('status', 'pending')
          .where('next_attempt_at', '<=', at)
          .where((w) => w.whereNull('claimed_until').orWhere('claimed_until', '<', at))
          .orderBy('next_attempt_at')
          .limit(options.limit)
          .select(...CLAIMED_COLUMNS);
        if (isPostgres(trx)) pick.forUpdate().skipLocked();
        const rows = (await pick) as Omit<ClaimedMail, 'claim'>[];
        if (rows.length === 0) return [];
        // One claim for the batch: a row's claim is still its own, since it is checked with the row's id.
        const claim = newId();
        await trx('outbound_mail')
          .whereIn(
            'id',
            rows.map((r) => r.id),
          )
          .update({
            claim,
            claimed_until: until,
            attempts: trx.raw('attempts + 1'),
            last_attempt_at: at,
            updated_at: at,
          });
        return rows.map((r) => ({ ...r, claim, attempts: r.attempts + 1 }));
      });
    },

    /**
     * Records an attempt while the claim is still held (false otherwise: the lease ran out and another node
     * took the message). A sent message keeps the bodies it is given (the link scrubbed) and forgets its link.
     */
    async finish(m: ClaimedMail, o: SendOutcome): Promise<boolean> {
      const common = { claim: null, claimed_until: null, updated_at: o.at };
      const patch = o.ok
        ? {
            ...common,
            status: 'sent',
            sent_at: o.at,
            message_id: o.messageId,
            last_error: null,
            subject: o.bodies.subject,
            text_body: o.bodies.text,
            html_body: o.bodies.html,
            link: null,
          }
        : {
            ...common,
            status: o.retryAt === null ? 'failed' : 'pending',
            next_attempt_at: o.retryAt ?? o.at,
            last_error: o.error,
          };
      return (await mail().where({ id: m.id, claim: m.claim }).update(patch)) > 0;
    },

    /** Deletes sent and failed messages last changed before `before`; held and pending ones stay. */
    async prune(before: string): Promise<number> {
      return mail().whereIn('status', ['sent', 'failed']).where('updated_at', '<', before).delete();
    },

    /** Messages by status, for /metrics. */
    async countByStatus(): Promise<Record<MailStatus, number>> {
      const rows = (await mail().groupBy('status').select('status', db.raw('count(*) as n'))) as {
        status: MailStatus;
        n: number | string;
      }[];
      const counts: Record<MailStatus, number> = { pending: 0, sent: 0, failed: 0, held: 0 };
      for (const r of rows) counts[r.status] = Number(r.n);
      return counts;
    },
  };
}
export type MailRepo = ReturnType<typeof mailRepo>;
