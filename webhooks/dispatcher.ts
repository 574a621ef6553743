import type { Clock } from '../core/clock.ts';
import { databaseErrorSummary } from '../core/db-errors.ts';
import type { Logger } from '../core/logger.ts';
import { pollLoop } from '../core/poll-delay.ts';
import { webhookHeaders } from '../core/webhook-signing.ts';
import type { ClaimedDelivery, WebhooksRepo } from '../db/repos/webhooks.ts';
import { type PostOptions, postWebhook } from './post.ts';

/** Seconds after the nth failed attempt, in units of the base (5 s: 5 s, 5 min, 30 min, 2 h, 5 h, 10 h, 10 h). */
const BACKOFF = [1, 60, 360, 1440, 3600, 7200, 7200];

export type DeliveryOutcome = 'delivered' | 'retry' | 'failed';

export interface DispatcherOptions {
  repo: WebhooksRepo;
  clock: Clock;
  logger: Logger;
  pollMs: number;
  /** How long a claim holds; after it another node sends the delivery again (keep it above the timeout). */
  leaseMs: number;
  /** Seconds of the first retry's wait; later waits are multiples of it. */
  retryBaseSeconds: number;
  /** Attempts of one delivery before it fails and its endpoint is disabled. */
  maxAttempts: number;
  post: PostOptions;
  batchSize?: number;
  onOutcome?: (outcome: DeliveryOutcome) => void;
}

export interface Dispatcher {
  start(): void;
  /** Fans new events out, then claims and sends one batch; the number of deliveries attempted. */
  runOnce(): Promise<number>;
  /** Stops polling and waits for deliveries under way. */
  stop(): Promise<void>;
}

/** The wait before the next attempt after `attempts` failed ones, ±10 % jitter; null when none is left. */
export function retryDelayMs(attempts: number, maxAttempts: number, baseSeconds: number): number | null {
  if (attempts >= maxAttempts) return null;
  const units = BACKOFF[Math.min(attempts - 1, BACKOFF.length - 1)]!;
  return units * baseSeconds * 1000 * (0.9 + Math.random() * 0.2);
}

/** Delivers the outbox's events to webhook endpoints; one runs on every node, over the same tables. */
export function createDispatcher(options: DispatcherOptions): Dispatcher {
  const { repo, clock, logger } = options;
  let stopping = false;

  async function send(d: ClaimedDelivery): Promise<void> {
    const timestamp = Math.floor(clock.now().getTime() / 1000);
    const result = await postWebhook(
      d.url,
      webhookHeaders(d.secrets, d.event_id, timestamp, d.payload),
      d.payload,
      options.post,
    );
    const ok = result.error === null;
    const now = clock.now();
    const wait = ok ? null : retryDelayMs(d.attempts, options.maxAttempts, options.retryBaseSeconds);
    const outcome: DeliveryOutcome = ok ? 'delivered' : wait === null ? 'failed' : 'retry';
    const recorded = await repo.finish(
      d,
      {
        ok,
        statusCode: result.statusCode,
        error: result.error,
        durationMs: result.durationMs,
        at: now.toISOString(),
        retryAt: wait === null ? null : new Date(now.getTime() + wait).toISOString(),
      },
      `disabled after ${d.attempts} failed attempts of delivery ${d.id}; the last: ${result.error}`,
    );
    if (!recorded) return; // the lease ran out and another node took it
    options.onOutcome?.(outcome);
    if (outcome === 'failed')
      logger.warn('webhook endpoint disabled', {
        endpoint_id: d.endpoint_id,
        delivery_id: d.id,
        detail: result.error,
      });
  }

  async function runOnce(): Promise<number> {
    for (const id of await repo.endpointsBehind()) {
      while ((await repo.fanOut(id, clock.now().toISOString())) > 0 && !stopping) {
        // a long backlog is read in pages
      }
    }
    if (stopping) return 0;
    const claimed = await repo.claim({
      now: clock.now(),
      leaseMs: options.leaseMs,
      limit: options.batchSize ?? 16,
    });
    await Promise.all(claimed.map(send));
    return claimed.length;
  }

  const poller = pollLoop(options.pollMs, runOnce, (err) => {
    // The summary, not the message: knex puts the statement and its values into the message.
    logger.warn('webhook delivery failed', databaseErrorSummary(err));
  });

  return {
    runOnce,
    start: poller.start,
    async stop() {
      stopping = true;
      await poller.stop();
    },
  };
}
