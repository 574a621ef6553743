import type { Repos } from '../db/repos/index.ts';
import type { Firm, Scope, User } from '../db/types.ts';
import type { Logger } from '../server/logger.ts';

export interface Clock {
  now(): Date;
}

export const systemClock: Clock = { now: () => new Date() };

/** Who is calling: an OAuth application acting as the user who created it, or a signed-in user. */
export interface Principal {
  kind: 'application' | 'user';
  /** Stable key for rate limits and idempotency: `app:<id>` or `user:<id>`. */
  key: string;
  tokenId: string;
  user: User;
  firm: Firm;
  scope: Scope;
}

/** Everything a tool handler may use, built once per request. */
export interface ToolContext {
  principal: Principal;
  repos: Repos;
  clock: Clock;
  logger: Logger;
  requestId: string;
  publicUrl: string;
}
