import type { Clock } from '../core/clock.ts';
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
import type { Audience } from '../db/repos/tokens.ts';
import { Unauthenticated } from '../tools/errors.ts';

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

/**
 * Resolves an Authorization header to the calling principal. Basic credentials are refused on data
 * endpoints without being checked; expired, revoked and foreign-audience tokens are all 401, and so
 * is a token of an MCP sign-in that was revoked, ended (30 days) or issued for another resource.
 */
export async function authenticate(
  repos: Repos,
  clock: Clock,
  header: string | undefined,
  resource: Resource,
  options: AuthenticateOptions = {},
): Promise<Principal> {
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
  const found = await repos.tokens.findWithOwner(tokenHash(value));
  const token = found?.token;
  const now = clock.now().toISOString();
  if (!found || !token || token.revoked_at || token.expires_at <= now || !accepts(token.audience, resource)) {
    throw new Unauthenticated(
      'the access token is invalid, expired or revoked; request a new one',
      'invalid_token',
    );
  }
  let scopes: readonly OAuthScope[] = ALL_SCOPES;
  if (token.grant_id) {
    const grant = await repos.mcpAuth.getGrant(token.grant_id);
    if (!grant || !options.mcpResource || token.resource !== options.mcpResource) {
      throw new Unauthenticated(
        `the access token was not issued for ${options.mcpResource ?? 'this endpoint'}; sign in again`,
        'invalid_token',
      );
    }
    if (grant.revoked_at || grant.expires_at <= now) {
      throw new Unauthenticated('this sign-in was revoked or has ended; sign in again', 'invalid_token');
    }
    if (stale(grant.last_used_at, now)) await repos.mcpAuth.touchGrant(grant.id, now);
    scopes = parseScopes(grant.scope);
  } else if (token.kind === 'personal' && stale(token.last_used_at, now)) {
    await repos.tokens.touch(token.id, now);
  }
  const { user, firm } = found;
  if (!user.is_active || user.firm_id !== token.firm_id) {
    throw new Unauthenticated('the user behind this token is no longer active', 'invalid_token');
  }
  return token.kind === 'client_credentials'
    ? principalFor(repos, user, firm, {
        kind: 'application',
        key: `app:${token.application_id}`,
        tokenId: token.id,
        scopes,
      })
    : principalFor(repos, user, firm, { kind: 'user', key: `user:${user.id}`, tokenId: token.id, scopes });
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
