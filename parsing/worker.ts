import type { Clock } from '../core/clock.ts';
import { databaseErrorSummary } from '../core/db-errors.ts';
import type { Logger } from '../core/logger.ts';
import { pollLoop } from '../core/poll-delay.ts';
import type { DocumentParsingRepo, ParseJob, ParseOutcome } from '../db/repos/document-parsing.ts';
import type { SheetGrid } from './grid.ts';
import { DEFAULT_RUN_LIMITS, type ParseRun, type RunLimits, runParse } from './runner.ts';

export interface ParseWorkerOptions {
  repo: DocumentParsingRepo;
  /** Records how a claimed job ended with its change event (services/document-parsing.ts); false when the claim was lost. */
  finish: (job: ParseJob, outcome: ParseOutcome, now: Date) => Promise<boolean>;
  clock: Clock;
  logger: Logger;
  /** Pause between polls when there was nothing to do. */
  pollMs: number;
  /** How long a claim holds; a job of a node that died is taken again after it. */
  leaseMs: number;
  /** Jobs claimed at a time. */
  batchSize?: number;
  /** Claims of one job (each by a node or a parser process that died mid-parse) before it ends not-parseable. */
  maxAttempts?: number;
  /** The time and memory each parse's process may take. */
  limits?: RunLimits;
  /** Turns a spreadsheet's typed grids into proposed data points, stored with the parse. */
  propose?: (
    documentId: string,
    grids: readonly SheetGrid[],
  ) => Promise<NonNullable<Extract<ParseOutcome, { state: 'completed' }>['proposals']>>;
}

export interface ParseWorker {
  /** Starts polling. */
  start(): void;
  /** Claims and parses one batch; the ids of the documents it finished. */
  runOnce(): Promise<string[]>;
  /** Stops polling, kills a parse under way, hands back jobs not yet finished, and resolves once nothing runs. */
  stop(): Promise<void>;
}

/**
 * A document-parsing worker over the table-backed queue; several may run on one database. Each parse runs
 * in a process of its own (runner.ts): a file that exhausts time or memory ends only its own document.
 */
export function createParseWorker(options: ParseWorkerOptions): ParseWorker {
  const { repo, clock, logger } = options;
  const limits = options.limits ?? DEFAULT_RUN_LIMITS;
  let stopping = false;
  let current: { job: ParseJob; run: ParseRun } | undefined;

  async function record(job: ParseJob, outcome: ParseOutcome): Promise<boolean> {
    const recorded = await options.finish(job, outcome, clock.now());
    if (recorded) logger.info('document parsed', { document_id: job.id, parse_state: outcome.state });
    return recorded;
  }

  async function parse(job: ParseJob): Promise<boolean> {
    const file = await repo.file(job.id);
    if (!file) return record(job, { state: 'not-parseable', reason: 'the stored file is missing' });
    if (stopping) {
      await repo.release(job);
      return false;
    }
    const run = runParse(file, limits);
    current = { job, run };
    let outcome: Awaited<ParseRun['outcome']>;
    try {
      outcome = await run.outcome;
    } catch (err) {
      // No process could be started: not the document's fault, so the attempt does not count.
      await repo.release(job);
      throw err;
    } finally {
      current = undefined;
    }
    if (outcome.state === 'stopped') return false; // stop() handed the job back
    if (outcome.state === 'crashed') {
      // Killed from outside (an operator, the OOM killer): taken again, and the attempt counts, so a
      // document that keeps killing its parser ends not-parseable after maxAttempts.
      logger.warn('document parse killed', { document_id: job.id, detail: outcome.detail });
      await repo.release(job, { countAttempt: true });
      return false;
    }
    if (outcome.state !== 'completed') return record(job, outcome);
    const { grids, ...parsed } = outcome;
    if (!grids || grids.length === 0 || !options.propose) return record(job, parsed);
    try {
      return record(job, { ...parsed, proposals: await options.propose(job.id, grids) });
    } catch (err) {
      // The text is what search needs; figures that could not be proposed do not cost it.
      logger.warn('document figures not proposed', { document_id: job.id, ...databaseErrorSummary(err) });
      return record(job, parsed);
    }
  }

  async function runOnce(): Promise<string[]> {
    const jobs = await repo.claim({
      now: clock.now(),
      leaseMs: options.leaseMs,
      limit: options.batchSize ?? 4,
      maxAttempts: options.maxAttempts ?? 3,
    });
    const done: string[] = [];
    for (const job of jobs) {
      if (stopping) {
        await repo.release(job);
        continue;
      }
      if (await parse(job)) done.push(job.id);
    }
    return done;
  }

  const poller = pollLoop(
    options.pollMs,
    async () => (await runOnce()).length,
    (err) => {
      // The summary, not the message: knex puts the statement and its values into the message.
      logger.warn('document parsing failed', databaseErrorSummary(err));
    },
  );

  return {
    runOnce,
    start: poller.start,
    async stop() {
      stopping = true;
      const polling = poller.stop();
      const under = current;
      if (under) {
        under.run.stop();
        await repo.release(under.job).catch(() => {});
      }
      await polling;
    },
  };
}

/** A worker that never ran: what createParseWorker's callers hold when parsing is switched off. */
export const idleWorker: ParseWorker = { start() {}, runOnce: async () => [], stop: async () => {} };
