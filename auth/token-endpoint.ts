import OAuth2Server, {
  OAuthError,
  Request as OAuthRequest,
  Response as OAuthResponse,
} from '@node-oauth/oauth2-server';
import type { Request, Response } from 'express';
import type { Clock } from '../core/clock.ts';
import { newToken, tokenHash, verifySecret } from '../core/secrets.ts';
import { newId } from '../db/ids.ts';
import type { Repos } from '../db/repos/index.ts';
import { basicCredentials, type ClientCredentials } from './basic.ts';
import { type FailureLimits, RateLimited } from './rate-limit.ts';

export const CLIENT_CREDENTIALS_TTL = 3600;
const SCOPE = ['read', 'write'];

interface AppClient {
  id: string;
  grants: string[];
  applicationId: string;
  firmId: string;
  userId: string;
}

/** The client-credentials grant of RFC 6749 §4.4 at /o/token/, over our applications and tokens. */
export function tokenEndpoint(repos: Repos, clock: Clock, failures: FailureLimits) {
  const server = new OAuth2Server({
    accessTokenLifetime: CLIENT_CREDENTIALS_TTL,
    allowExtendedTokenAttributes: true,
    requireClientAuthentication: { client_credentials: true },
    model: {
      async getClient(clientId: string, clientSecret: string) {
        const app = await repos.applications.findByClientId(clientId);
        if (!app || app.revoked_at || !(await verifySecret(clientSecret ?? '', app.client_secret_hash)))
          return false;
        const user = await repos.users.get(app.user_id);
        if (!user?.is_active) return false;
        return {
          id: app.client_id,
          grants: ['client_credentials'],
          applicationId: app.id,
          firmId: app.firm_id,
          userId: app.user_id,
        } satisfies AppClient;
      },
      async getUserFromClient(client: AppClient) {
        return { id: client.userId };
      },
      async validateScope() {
        return SCOPE;
      },
      async generateAccessToken() {
        return newToken('pds_at');
      },
      async saveToken(
        token: { accessToken: string; scope?: string[] },
        client: AppClient,
        user: { id: string },
      ) {
        const now = clock.now();
        const expiresAt = new Date(now.getTime() + CLIENT_CREDENTIALS_TTL * 1000);
        await repos.tokens.insert({
          id: newId(),
          token_hash: tokenHash(token.accessToken),
          kind: 'client_credentials',
          audience: 'rest',
          firm_id: client.firmId,
          user_id: user.id,
          application_id: client.applicationId,
          grant_id: null,
          name: null,
          resource: null,
          scope: SCOPE.join(' '),
          created_at: now.toISOString(),
          expires_at: expiresAt.toISOString(),
          last_used_at: null,
          revoked_at: null,
        });
        // The library derives expires_in from the wall clock (and floors it); state it exactly instead.
        return {
          accessToken: token.accessToken,
          scope: SCOPE,
          client,
          user,
          expires_in: CLIENT_CREDENTIALS_TTL,
        };
      },
      async getAccessToken() {
        return false;
      },
    },
  });

  return async function handle(req: Request, res: Response): Promise<void> {
    const request = new OAuthRequest({
      method: req.method,
      headers: req.headers as Record<string, string>,
      query: req.query as Record<string, string>,
      body: (req.body as Record<string, string> | undefined) ?? {},
    });
    const response = new OAuthResponse({ headers: {} });
    res.set('Cache-Control', 'no-store').set('Pragma', 'no-cache');
    let refund: (() => Promise<void>) | undefined;
    try {
      refund = await failures.reserve(req.ip ?? '', clientAccount(req));
      await server.token(request, response);
      await refund();
      res.status(200).json(response.body);
    } catch (err) {
      if (err instanceof OAuthError) {
        const error = err.name === 'unauthorized_request' ? 'invalid_client' : err.name;
        const status = error === 'invalid_client' ? 401 : (err.code ?? 400);
        // Only a wrong client secret keeps its reserved attempt.
        if (error !== 'invalid_client') await refund?.();
        if (status === 401) res.set('WWW-Authenticate', 'Basic realm="token"');
        res.status(status).json({ error, error_description: err.message });
        return;
      }
      if (err instanceof RateLimited) {
        tooMany(res, err);
        return;
      }
      throw err;
    }
  };
}

function tooMany(res: Response, err: RateLimited): void {
  res.set('Retry-After', String(err.retryAfterSeconds));
  res.status(429).json({ error: 'too_many_requests', error_description: err.message });
}

/** The client credentials of a Basic header or, failing that, of the form body. */
function clientCredentials(req: Request): ClientCredentials | undefined {
  const basic = basicCredentials(req.get('Authorization'));
  if (basic === 'malformed') return undefined;
  if (basic) return basic;
  const body = (req.body ?? {}) as Record<string, unknown>;
  if (typeof body.client_id === 'string')
    return { id: body.client_id, secret: String(body.client_secret ?? '') };
  return undefined;
}

/** The account whose secret a request tries, for the failure limits. */
function clientAccount(req: Request): string | undefined {
  const id = clientCredentials(req)?.id;
  return id ? `client:${id}` : undefined;
}

/**
 * Token revocation (RFC 7009) at /o/revoke_token/: an application authenticates with its credentials
 * and revokes one of its own tokens. Unknown or foreign tokens are answered 200 as well.
 */
export function revocationEndpoint(repos: Repos, clock: Clock, failures: FailureLimits) {
  return async function handle(req: Request, res: Response): Promise<void> {
    res.set('Cache-Control', 'no-store');
    let refund: () => Promise<void>;
    try {
      refund = await failures.reserve(req.ip ?? '', clientAccount(req));
    } catch (err) {
      if (err instanceof RateLimited) return tooMany(res, err);
      throw err;
    }
    const creds = clientCredentials(req);
    const app = creds && (await repos.applications.findByClientId(creds.id));
    if (!creds || !app || app.revoked_at || !(await verifySecret(creds.secret, app.client_secret_hash))) {
      res.set('WWW-Authenticate', 'Basic realm="token"');
      res.status(401).json({ error: 'invalid_client', error_description: 'client authentication failed' });
      return;
    }
    await refund();
    const token = (req.body as Record<string, unknown> | undefined)?.token;
    if (typeof token !== 'string' || token === '') {
      res
        .status(400)
        .json({ error: 'invalid_request', error_description: 'the token parameter is required' });
      return;
    }
    const row = await repos.tokens.findByHash(tokenHash(token));
    if (row && row.application_id === app.id) await repos.tokens.revoke(row.id, clock.now().toISOString());
    res.status(200).json({});
  };
}
