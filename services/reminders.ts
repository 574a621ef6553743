// The scheduled reminder pass: every node runs it; a firm's turn is taken by one node at a time under
// a transaction lock, and every reminder has a dedupe key besides, so each is queued once however
// many nodes run the pass at the same moment.
import type { Clock } from '../core/clock.ts';
import { databaseErrorSummary } from '../core/db-errors.ts';
import type { Logger } from '../core/logger.ts';
import { pollLoop } from '../core/poll-delay.ts';
import type { Firm } from '../core/principal.ts';
import { tryPassLock } from '../db/pass-lock.ts';
import { inTransaction, type Repos } from '../db/repos/index.ts';

/** What one firm's turn did. */
export interface FirmReminders {
  /** Reminder messages queued. */
  reminders: number;
  /** Reports announced late. */
  late: number;
}

/** One firm's reminders and lateness, written through `repos` (bound to the turn's transaction). */
export type RemindFirm = (repos: Repos, firm: Firm, now: Date) => Promise<FirmReminders>;

export interface ReminderPassOptions {
  repos: Repos;
  clock: Clock;
  logger: Logger;
  intervalMs: number;
  remindFirm: RemindFirm;
}

export interface ReminderPass {
  start(): void;
  /** One pass over every firm; the firms this node took a turn for (those held by another node are skipped). */
  runOnce(): Promise<{ firms: number } & FirmReminders>;
  stop(): Promise<void>;
}

export function createReminderPass(options: ReminderPassOptions): ReminderPass {
  const { repos, clock, logger } = options;

  /** A firm's turn, or null when another node has it. */
  function turn(firm: Firm): Promise<FirmReminders | null> {
    return inTransaction(repos, async (trx) => {
      if (!(await tryPassLock(trx.db, `reminders:${firm.id}`))) return null;
      return options.remindFirm(trx, firm, clock.now());
    });
  }

  async function runOnce() {
    const total = { firms: 0, reminders: 0, late: 0 };
    for (const firm of await repos.firms.list()) {
      try {
        const done = await turn(firm);
        if (!done) continue;
        total.firms += 1;
        total.reminders += done.reminders;
        total.late += done.late;
        if (done.reminders || done.late) logger.info('reminder pass', { firm_id: firm.id, ...done });
      } catch (err) {
        logger.warn('reminder pass failed', { firm_id: firm.id, ...databaseErrorSummary(err) });
      }
    }
    return total;
  }

  // Each round waits the whole interval: a pass that found work leaves none for an immediate next one.
  const poller = pollLoop(
    options.intervalMs,
    () => runOnce().then(() => 0),
    (err) => logger.warn('reminder pass failed', databaseErrorSummary(err)),
  );
  return { runOnce, start: poller.start, stop: poller.stop };
}
