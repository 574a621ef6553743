import type { Repos } from '../db/repos/index.ts';
import type { Audience } from '../db/repos/tokens.ts';
import type { Clock, Principal } from '../tools/context.ts';
import { Unauthenticated } from '../tools/errors.ts';
import { tokenHash } from './secrets.ts';

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

/** The last use of a sign-in is recorded at most once a minute. */
const GRANT_TOUCH_INTERVAL_MS = 60_000;

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
  const token = await repos.tokens.findByHash(tokenHash(value));
  const now = clock.now().toISOString();
  if (!token || token.revoked_at || token.expires_at <= now || !accepts(token.audience, resource)) {
    throw new Unauthenticated(
      'the access token is invalid, expired or revoked; request a new one',
      'invalid_token',
    );
  }
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
    if (!grant.last_used_at || Date.parse(grant.last_used_at) <= Date.parse(now) - GRANT_TOUCH_INTERVAL_MS) {
      await repos.mcpAuth.touchGrant(grant.id, now);
    }
  }
  const user = await repos.users.get(token.user_id);
  const firm = user && (await repos.firms.get(user.firm_id));
  if (!user || !firm || !user.is_active || user.firm_id !== token.firm_id) {
    throw new Unauthenticated('the user behind this token is no longer active', 'invalid_token');
  }
  const companyIds = await repos.users.companyAccess(user);
  const kind = token.kind === 'client_credentials' ? 'application' : 'user';
  return {
    kind,
    key: kind === 'application' ? `app:${token.application_id}` : `user:${user.id}`,
    tokenId: token.id,
    user,
    firm,
    scope: { firmId: firm.id, companyIds },
  };
}
