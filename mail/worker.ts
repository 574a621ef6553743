import type { Clock } from '../core/clock.ts';
import { databaseErrorSummary } from '../core/db-errors.ts';
import type { Logger } from '../core/logger.ts';
import { scrubLink } from '../core/mail-link.ts';
import { pollLoop } from '../core/poll-delay.ts';
import type { ClaimedMail, MailRepo } from '../db/repos/mail.ts';
import { type MailSender, sendFailure } from './transport.ts';

/** The longest wait between two attempts of one message. */
const MAX_RETRY_DELAY_MS = 4 * 60 * 60 * 1000;

export type MailOutcome = 'sent' | 'retry' | 'failed' | 'held';

export interface MailWorkerOptions {
  repo: MailRepo;
  clock: Clock;
  logger: Logger;
  /** Where messages go; without one (no SMTP_URL) they are held in the outbox for the operator. */
  sender: MailSender | undefined;
  pollMs: number;
  /** How long a claim holds; after it another node sends the message again (keep it above a send's time). */
  leaseMs: number;
  /** Seconds of the first retry's wait; each later wait is four times the one before, up to four hours. */
  retryBaseSeconds: number;
  /** Attempts of one message before it fails. */
  maxAttempts: number;
  batchSize?: number;
  onOutcome?: (outcome: MailOutcome, count: number) => void;
}

export interface MailWorker {
  start(): void;
  /** Sends one batch of due messages (or, without a sender, holds the pending ones); how many it handled. */
  runOnce(): Promise<number>;
  /** Stops polling, waits for sends under way and closes the sender's connections. */
  stop(): Promise<void>;
}

/** The wait after the nth failed attempt, ±10 % jitter; null when no attempt is left. */
export function mailRetryDelayMs(attempts: number, maxAttempts: number, baseSeconds: number): number | null {
  if (attempts >= maxAttempts) return null;
  const wait = Math.min(baseSeconds * 1000 * 4 ** (attempts - 1), MAX_RETRY_DELAY_MS);
  return wait * (0.9 + Math.random() * 0.2);
}

/** Sends the outbox's messages; one runs on every node, over the same table. */
export function createMailWorker(options: MailWorkerOptions): MailWorker {
  const { repo, clock, logger, sender } = options;

  async function send(s: MailSender, m: ClaimedMail): Promise<void> {
    const to = { name: m.to_name ?? '', address: m.to_address };
    const bodies = { subject: m.subject, text: m.text_body, html: m.html_body };
    let outcome: MailOutcome;
    let recorded: boolean;
    try {
      const { messageId } = await s.send({ to, ...bodies });
      const at = clock.now().toISOString();
      // The stored copy must not keep a live founder link once the founder has it.
      const kept = m.link === null ? bodies : scrubLink(bodies, m.link);
      outcome = 'sent';
      recorded = await repo.finish(m, { ok: true, at, messageId, bodies: kept });
    } catch (err) {
      const failure = sendFailure(err);
      const now = clock.now();
      const wait = failure.permanent
        ? null
        : mailRetryDelayMs(m.attempts, options.maxAttempts, options.retryBaseSeconds);
      outcome = wait === null ? 'failed' : 'retry';
      const retryAt = wait === null ? null : new Date(now.getTime() + wait).toISOString();
      recorded = await repo.finish(m, { ok: false, at: now.toISOString(), error: failure.error, retryAt });
      if (recorded && outcome === 'failed')
        logger.warn('mail failed', { mail_id: m.id, attempts: m.attempts, detail: failure.error });
    }
    if (recorded) options.onOutcome?.(outcome, 1);
  }

  async function runOnce(): Promise<number> {
    const now = clock.now();
    if (!sender) {
      const held = await repo.holdPending(now.toISOString());
      if (held > 0) {
        logger.info('mail held: SMTP_URL is not set; read it with "portfolio outbox"', { count: held });
        options.onOutcome?.('held', held);
      }
      return held;
    }
    const claimed = await repo.claim({ now, leaseMs: options.leaseMs, limit: options.batchSize ?? 16 });
    await Promise.all(claimed.map((m) => send(sender, m)));
    return claimed.length;
  }

  const poller = pollLoop(options.pollMs, runOnce, (err) => {
    // The summary, not the message: knex puts the statement and its values into the message.
    logger.warn('mail round failed', databaseErrorSummary(err));
  });

  return {
    runOnce,
    start: poller.start,
    async stop() {
      await poller.stop();
      sender?.close();
    },
  };
}
