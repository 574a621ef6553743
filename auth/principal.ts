import { BoundedMap } from '../core/bounded-map.ts';
import type { Clock } from '../core/clock.ts';
import { Unauthenticated } from '../core/errors.ts';
import {
  ALL_SCOPES,
  type Firm,
  type OAuthScope,
  type Principal,
  parseScopes,
  type User,
} from '../core/principal.ts';
import { tokenHash } from '../core/secrets.ts';
import type { Repos } from '../db/repos/index.ts';
import type { McpGrantRow } from '../db/repos/mcp-auth.ts';
import type { AccessTokenRow, Audience } from '../db/repos/tokens.ts';

/**
 * An RFC 6750 challenge: `Bearer <first>`, plus the error and its description when a token was bad.
 * `first` is the realm on REST and the resource metadata URL on /mcp.
 */
export function bearerChallenge(
  first: string,
  error?: BearerError,
  description?: string,
  scope?: string,
): string {
  const parts = [first];
  if (error) {
    parts.push(`error="${error}"`);
    if (description) parts.push(`error_description="${description.replace(/["\\]/g, "'")}"`);
  }
  if (scope) parts.push(`scope="${scope}"`);
  return `Bearer ${parts.join(', ')}`;
}

/** RFC 6750 §3.1 error codes of a challenge. */
export type BearerError = NonNullable<Unauthenticated['bearerError']> | 'insufficient_scope';

/** Which endpoint family a token is presented to. */
export type Resource = 'rest' | 'mcp';

function accepts(audience: Audience, resource: Resource): boolean {
  return audience === 'any' || audience === resource;
}

export interface AuthenticateOptions {
  /**
   * The RFC 8707 resource this endpoint is (`${PUBLIC_URL}/mcp`): a token from an MCP sign-in is
   * accepted only where it is named and only when the token was issued for it.
   */
  mcpResource?: string;
}

/** The last use of a sign-in or a personal token is recorded at most once a minute. */
const TOUCH_INTERVAL_MS = 60_000;

/** What a token resolves to in the database: the rows every check below reads. */
interface Resolved {
  token: AccessTokenRow;
  grant: McpGrantRow | undefined;
  principal: Principal;
}

/**
 * Principals recently resolved on this node, by token hash. Each was read at a value of the database's
 * authentication counter (`auth_version`, moved by triggers whenever a token, sign-in, user, firm or
 * company access changes), and is used only while the counter still has that value: a revocation on any
 * node takes effect on the next request everywhere, at the cost of one primary-key read instead of the
 * token, user, firm, sign-in and company-access reads. Entries also expire after `ttlMs`.
 */
export class PrincipalCache {
  readonly #entries: BoundedMap<string, Resolved & { cachedAt: number }>;
  #version: number | undefined;

  constructor(
    readonly ttlMs = 60_000,
    maxEntries = 10_000,
  ) {
    this.#entries = new BoundedMap(maxEntries);
  }

  get(hash: string, version: number, nowMs: number): Resolved | undefined {
    if (version !== this.#version) {
      this.#entries.clear();
      this.#version = version;
      return undefined;
    }
    const entry = this.#entries.get(hash);
    if (entry && nowMs - entry.cachedAt < this.ttlMs) return entry;
    if (entry) this.#entries.delete(hash);
    return undefined;
  }

  set(hash: string, version: number, nowMs: number, resolved: Resolved): void {
    if (version !== this.#version) return;
    this.#entries.set(hash, { ...resolved, cachedAt: nowMs });
  }
}

/**
 * Resolves an Authorization header to the calling principal. Basic credentials are refused on data
 * endpoints without being checked; expired, revoked and foreign-audience tokens are all 401, and so
 * is a token of an MCP sign-in that was revoked, ended (30 days) or issued for another resource.
 * With a cache, a token seen recently is checked against the rows it was resolved from, which the
 * authentication counter vouches for.
 */
export async function authenticate(
  repos: Repos,
  clock: Clock,
  header: string | undefined,
  resource: Resource,
  options: AuthenticateOptions = {},
  cache?: PrincipalCache,
): Promise<Principal> {
  const hash = tokenHash(bearerToken(header));
  const at = clock.now();
  let resolved: Resolved | undefined;
  if (cache) {
    const version = await repos.tokens.authVersion();
    resolved = cache.get(hash, version, at.getTime());
    if (!resolved) {
      resolved = await resolve(repos, hash);
      if (resolved) cache.set(hash, version, at.getTime(), resolved);
    }
  } else {
    resolved = await resolve(repos, hash);
  }
  return check(repos, resolved, at.toISOString(), resource, options);
}

/** The token of a `Bearer` header; anything else is a 401 that says what to send. */
function bearerToken(header: string | undefined): string {
  if (!header) throw new Unauthenticated('missing Authorization header; send Authorization: Bearer <token>');
  const [scheme, value] = header.split(/\s+/, 2);
  if (scheme?.toLowerCase() === 'basic') {
    throw new Unauthenticated(
      'Basic credentials are accepted only at /o/token/; exchange them for a bearer token there',
      'invalid_request',
    );
  }
  if (scheme?.toLowerCase() !== 'bearer' || !value) {
    throw new Unauthenticated('Authorization must be "Bearer <token>"', 'invalid_request');
  }
  return value;
}

/** The token with its user, firm, sign-in and company access, or nothing for an unknown token. */
async function resolve(repos: Repos, hash: string): Promise<Resolved | undefined> {
  const found = await repos.tokens.findWithOwner(hash);
  if (!found) return undefined;
  const { token, user, firm } = found;
  const grant = token.grant_id ? await repos.mcpAuth.getGrant(token.grant_id) : undefined;
  const scopes = grant ? parseScopes(grant.scope) : ALL_SCOPES;
  const who =
    token.kind === 'client_credentials'
      ? { kind: 'application' as const, key: `app:${token.application_id}`, tokenId: token.id, scopes }
      : { kind: 'user' as const, key: `user:${user.id}`, tokenId: token.id, scopes };
  return { token, grant, principal: deepFreeze(await principalFor(repos, user, firm, who)) };
}

/** The checks of every request, on rows just read or cached; last use is stamped at most once a minute. */
async function check(
  repos: Repos,
  resolved: Resolved | undefined,
  now: string,
  resource: Resource,
  options: AuthenticateOptions,
): Promise<Principal> {
  const token = resolved?.token;
  if (
    !resolved ||
    !token ||
    token.revoked_at ||
    token.expires_at <= now ||
    !accepts(token.audience, resource)
  ) {
    throw new Unauthenticated(
      'the access token is invalid, expired or revoked; request a new one',
      'invalid_token',
    );
  }
  const { grant, principal } = resolved;
  if (token.grant_id) {
    if (!grant || !options.mcpResource || token.resource !== options.mcpResource) {
      throw new Unauthenticated(
        `the access token was not issued for ${options.mcpResource ?? 'this endpoint'}; sign in again`,
        'invalid_token',
      );
    }
    if (grant.revoked_at || grant.expires_at <= now) {
      throw new Unauthenticated('this sign-in was revoked or has ended; sign in again', 'invalid_token');
    }
    if (stale(grant.last_used_at, now)) {
      grant.last_used_at = now;
      await repos.mcpAuth.touchGrant(grant.id, now);
    }
  } else if (token.kind === 'personal' && stale(token.last_used_at, now)) {
    token.last_used_at = now;
    await repos.tokens.touch(token.id, now);
  }
  const { user } = principal;
  if (!user.is_active || user.firm_id !== token.firm_id) {
    throw new Unauthenticated('the user behind this token is no longer active', 'invalid_token');
  }
  return principal;
}

/** A cached principal is shared by the requests that use it: nothing may change it. */
function deepFreeze<T>(value: T): T {
  if (value && typeof value === 'object' && !Object.isFrozen(value)) {
    Object.freeze(value);
    for (const inner of Object.values(value)) deepFreeze(inner);
  }
  return value;
}

/** Whether a last-use stamp is old enough to be written again (at most once a minute). */
function stale(lastUsedAt: string | null, now: string): boolean {
  return !lastUsedAt || Date.parse(lastUsedAt) <= Date.parse(now) - TOUCH_INTERVAL_MS;
}

/** The principal of a known, active user: their firm and the companies they may see. */
export async function principalFor(
  repos: Repos,
  user: User,
  firm: Firm,
  who: Pick<Principal, 'kind' | 'key' | 'tokenId'> & { scopes?: readonly OAuthScope[] },
): Promise<Principal> {
  const companyIds = await repos.users.companyAccess(user);
  return { scopes: ALL_SCOPES, ...who, user, firm, scope: { firmId: firm.id, companyIds } };
}
