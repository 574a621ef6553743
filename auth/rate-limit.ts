import type { Redis } from 'ioredis';
import {
  type RateLimiterAbstract,
  RateLimiterMemory,
  RateLimiterRedis,
  RateLimiterRes,
} from 'rate-limiter-flexible';
import { ToolError } from '../core/errors.ts';
import type { Logger } from '../core/logger.ts';

export class RateLimited extends ToolError {
  constructor(
    message: string,
    readonly retryAfterSeconds: number,
    /** The budget that was exhausted, for the RateLimit-Limit header. */
    readonly limit: number,
  ) {
    super(429, 'rate_limited', message);
  }
}

export interface LimitState {
  limit: number;
  remaining: number;
  resetSeconds: number;
}

export interface Limiter {
  /** Counts one request for `key`; throws RateLimited past the limit. */
  consume(key: string): Promise<LimitState>;
  /** Gives back one point counted for `key` (an attempt that turned out to succeed); never throws. */
  refund(key: string): Promise<void>;
  reset(key: string): Promise<void>;
}

function state(limit: number, res: RateLimiterRes): LimitState {
  return {
    limit,
    remaining: Math.max(0, res.remainingPoints),
    resetSeconds: Math.max(1, Math.ceil(res.msBeforeNext / 1000)),
  };
}

/**
 * A fixed-window limiter of `points` per `duration` seconds: in memory, or shared over Redis by every
 * node. When Redis cannot be reached the in-memory insurance limiter keeps counting per node.
 */
export function createLimiter(
  options: { points: number; duration: number; prefix: string; redis?: Redis },
  describe: (retryAfter: number) => string,
): Limiter {
  const memory = new RateLimiterMemory({
    points: options.points,
    duration: options.duration,
    keyPrefix: options.prefix,
  });
  const limiter: RateLimiterAbstract = options.redis
    ? new RateLimiterRedis({
        storeClient: options.redis,
        points: options.points,
        duration: options.duration,
        keyPrefix: `pds:${options.prefix}`,
        insuranceLimiter: memory,
      })
    : memory;

  async function take(key: string): Promise<RateLimiterRes> {
    try {
      return await limiter.consume(key);
    } catch (rejection) {
      if (rejection instanceof RateLimiterRes) {
        const retry = Math.max(1, Math.ceil(rejection.msBeforeNext / 1000));
        throw new RateLimited(describe(retry), retry, options.points);
      }
      throw rejection;
    }
  }

  return {
    async consume(key) {
      return state(options.points, await take(key));
    },
    async refund(key) {
      await limiter.reward(key, 1).catch(() => undefined);
    },
    async reset(key) {
      await limiter.delete(key).catch(() => false);
    },
  };
}

/**
 * A Redis client that fails fast while the server is away, so requests never wait on it. The client
 * library is loaded only here: a node without REDIS_URL never loads it.
 */
export async function connectRedis(url: string, logger: Logger): Promise<Redis> {
  const { Redis } = await import('ioredis');
  const redis = new Redis(url, {
    enableOfflineQueue: false,
    maxRetriesPerRequest: 0,
    connectTimeout: 1000,
    retryStrategy: (attempt) => Math.min(attempt * 200, 2000),
    lazyConnect: false,
  });
  let down = false;
  redis.on('error', (err: Error) => {
    if (!down)
      logger.warn('redis unreachable: rate limits fall back to per-node counting', { error: err.message });
    down = true;
  });
  redis.on('ready', () => {
    if (down) logger.info('redis reachable again: rate limits are shared');
    down = false;
  });
  return redis;
}

/**
 * Limits on attempts to prove a secret (a password, a client secret). Each attempt is reserved before
 * the secret is verified and refunded when it was right, so parallel attempts can never verify more
 * than the limit in a window. The account's budget is kept per address, so someone else's failures
 * never lock the owner out from their usual address; each address also has one larger budget over
 * all accounts.
 */
export interface FailureLimits {
  /**
   * Reserves one attempt for `account` (a "kind:id" string) from `address`; throws RateLimited when
   * either budget is spent. Call the answer once the secret proved right, to give the attempt back.
   */
  reserve(address: string, account?: string): Promise<() => Promise<void>>;
}

export function failureLimits(perAccount: Limiter, perAddress: Limiter): FailureLimits {
  return {
    async reserve(address, account) {
      const taken: [Limiter, string][] = [];
      const refund = async () => {
        for (const [limiter, key] of taken) await limiter.refund(key);
      };
      try {
        taken.push([perAddress, `ip:${address}`]);
        await perAddress.consume(`ip:${address}`);
        if (account) {
          taken.push([perAccount, `${account}|ip:${address}`]);
          await perAccount.consume(`${account}|ip:${address}`);
        }
      } catch (err) {
        // A refused attempt verifies nothing, so it spends no budget.
        await refund();
        throw err;
      }
      return refund;
    },
  };
}

export interface Limits {
  /** Requests per principal per minute, on REST, beta and MCP. */
  requests: Limiter;
  /** Attempts at a secret, per account and address and per address. */
  failures: FailureLimits;
  /** Client metadata documents fetched on behalf of one address per minute. */
  metadataFetches: Limiter;
  /** Dynamic client registrations (POST /register) per address per minute. */
  registrations: Limiter;
  /** Requests to the founder page per link and per address per minute (FOUNDER_PAGE_PER_MINUTE). */
  founderPage: Limiter;
  /**
   * Resolves once the shared store is reachable, or after `timeoutMs` (limits then count per node until
   * it is): a node that starts serving before its first Redis connection would count its first requests
   * alone. Resolves at once without Redis.
   */
  connected(timeoutMs: number): Promise<void>;
  close(): Promise<void>;
}

const METADATA_FETCHES_PER_MINUTE = 20;

/** Failed attempts one address may make per minute over all accounts, as a multiple of the per-account limit. */
const ADDRESS_FAILURE_FACTOR = 5;

export async function createLimits(
  options: {
    perMinute: number;
    failuresPerMinute?: number;
    registrationsPerMinute?: number;
    founderPagePerMinute?: number;
    redisUrl?: string;
  },
  logger: Logger,
): Promise<Limits> {
  const redis = options.redisUrl ? await connectRedis(options.redisUrl, logger) : undefined;
  const perAccount = options.failuresPerMinute ?? 10;
  const tooManyFailures = (retry: number) => `too many failed attempts; wait ${retry} s before trying again`;
  return {
    requests: createLimiter(
      { points: options.perMinute, duration: 60, prefix: 'req', redis },
      (retry) => `rate limit of ${options.perMinute} requests per minute exceeded; retry in ${retry} s`,
    ),
    failures: failureLimits(
      createLimiter({ points: perAccount, duration: 60, prefix: 'fail', redis }, tooManyFailures),
      createLimiter(
        { points: perAccount * ADDRESS_FAILURE_FACTOR, duration: 60, prefix: 'failip', redis },
        tooManyFailures,
      ),
    ),
    metadataFetches: createLimiter(
      { points: METADATA_FETCHES_PER_MINUTE, duration: 60, prefix: 'cimd', redis },
      (retry) => `too many client metadata documents fetched for this address; retry in ${retry} s`,
    ),
    registrations: createLimiter(
      { points: options.registrationsPerMinute ?? 10, duration: 60, prefix: 'reg', redis },
      (retry) => `too many client registrations from this address; retry in ${retry} s`,
    ),
    founderPage: createLimiter(
      { points: options.founderPagePerMinute ?? 30, duration: 60, prefix: 'founder', redis },
      (retry) => `too many requests to this page; wait ${retry} s and try again`,
    ),
    async connected(timeoutMs) {
      if (!redis || redis.status === 'ready') return;
      await new Promise<void>((resolve) => {
        const done = () => {
          clearTimeout(timer);
          redis.off('ready', done);
          resolve();
        };
        const timer = setTimeout(done, timeoutMs);
        redis.once('ready', done);
      });
    },
    async close() {
      if (redis) redis.disconnect();
    },
  };
}
