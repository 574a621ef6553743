import { setTimeout as delay } from 'node:timers/promises';
import type { Clock } from '../core/clock.ts';
import type { Logger } from '../core/logger.ts';
import type { DocumentParsingRepo, ParseJob } from '../db/repos/document-parsing.ts';
import { DEFAULT_EXTRACT_LIMITS, type ExtractLimits, extractText } from './extract.ts';

export interface ParseWorkerOptions {
  repo: DocumentParsingRepo;
  clock: Clock;
  logger: Logger;
  /** Pause between polls when there was nothing to do. */
  pollMs: number;
  /** How long a claim holds; a job of a node that died is taken again after it. */
  leaseMs: number;
  /** Jobs claimed at a time. */
  batchSize?: number;
  /** Claims of one job (each by a node that died mid-parse) before it ends not-parseable. */
  maxAttempts?: number;
  /** How long stop() waits for a parse under way before handing its job back. */
  stopGraceMs?: number;
  limits?: ExtractLimits;
}

export interface ParseWorker {
  /** Starts polling. */
  start(): void;
  /** Claims and parses one batch; the ids of the documents it finished. */
  runOnce(): Promise<string[]>;
  /** Stops polling, hands back jobs not yet finished, and resolves once nothing runs. */
  stop(): Promise<void>;
}

/** A document-parsing worker over the table-backed queue; several may run on one database. */
export function createParseWorker(options: ParseWorkerOptions): ParseWorker {
  const { repo, clock, logger } = options;
  const limits = options.limits ?? DEFAULT_EXTRACT_LIMITS;
  let stopping = false;
  let current: ParseJob | undefined;

  async function parse(job: ParseJob): Promise<boolean> {
    const file = await repo.file(job.id);
    const outcome = file
      ? await extractText(file, limits)
      : ({ state: 'not-parseable', reason: 'the stored file is missing' } as const);
    if (stopping && current === undefined) return false; // handed back while parsing
    const recorded = await repo.finish(job, outcome, clock.now());
    if (recorded) logger.info('document parsed', { document_id: job.id, parse_state: outcome.state });
    return recorded;
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
      current = job;
      try {
        if (await parse(job)) done.push(job.id);
      } finally {
        current = undefined;
      }
    }
    return done;
  }

  let running: Promise<unknown> | undefined;
  let timer: NodeJS.Timeout | undefined;
  const loop = () => {
    running = runOnce().then(
      (done) => done.length,
      (err: unknown) => {
        logger.warn('document parsing failed', { detail: err instanceof Error ? err.message : String(err) });
        return 0;
      },
    );
    void running.then((count) => {
      running = undefined;
      // More may be waiting after a busy round; otherwise wait for the next poll.
      if (!stopping) timer = setTimeout(loop, count ? 0 : options.pollMs);
    });
  };

  return {
    runOnce,
    start() {
      timer ??= setTimeout(loop, 0);
    },
    async stop() {
      stopping = true;
      clearTimeout(timer);
      if (!running) return;
      const finished = await Promise.race([
        running.then(() => true),
        delay(options.stopGraceMs ?? 5000, false),
      ]);
      const job = current;
      if (!finished && job) {
        current = undefined;
        await repo.release(job).catch(() => {});
      }
    },
  };
}

/** A worker that never ran: what createParseWorker's callers hold when parsing is switched off. */
export const idleWorker: ParseWorker = { start() {}, runOnce: async () => [], stop: async () => {} };
