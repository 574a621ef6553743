import { Redis } from 'ioredis';
import {
  type RateLimiterAbstract,
  RateLimiterMemory,
  RateLimiterRedis,
  RateLimiterRes,
} from 'rate-limiter-flexible';
import type { Logger } from '../core/logger.ts';
import { ToolError } from '../tools/errors.ts';

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
  /** Throws RateLimited once `fail` has counted the limit for `key` in the window. */
  check(key: string): Promise<void>;
  /** Counts one failure (a wrong secret or password); never throws. */
  fail(key: string): Promise<void>;
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
    async check(key) {
      const res = await limiter.get(key).catch(() => null);
      if (res && res.consumedPoints >= options.points) {
        const retry = Math.max(1, Math.ceil(res.msBeforeNext / 1000));
        throw new RateLimited(describe(retry), retry, options.points);
      }
    },
    async fail(key) {
      await limiter.consume(key).catch(() => undefined);
    },
    async reset(key) {
      await limiter.delete(key).catch(() => false);
    },
  };
}

/** A Redis client that fails fast while the server is away, so requests never wait on it. */
export function connectRedis(url: string, logger: Logger): Redis {
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

export interface Limits {
  /** Requests per principal per minute, on REST, beta and MCP. */
  requests: Limiter;
  /** Failed credentials per client id, account or address per minute. */
  failures: Limiter;
  close(): Promise<void>;
}

export function createLimits(
  options: { perMinute: number; failuresPerMinute?: number; redisUrl?: string },
  logger: Logger,
): Limits {
  const redis = options.redisUrl ? connectRedis(options.redisUrl, logger) : undefined;
  return {
    requests: createLimiter(
      { points: options.perMinute, duration: 60, prefix: 'req', redis },
      (retry) => `rate limit of ${options.perMinute} requests per minute exceeded; retry in ${retry} s`,
    ),
    failures: createLimiter(
      { points: options.failuresPerMinute ?? 10, duration: 60, prefix: 'fail', redis },
      (retry) => `too many failed attempts; wait ${retry} s before trying again`,
    ),
    async close() {
      if (redis) redis.disconnect();
    },
  };
}
