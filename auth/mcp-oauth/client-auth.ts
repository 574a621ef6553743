import type { NextFunction, Request, Response } from 'express';
import { verifySecret } from '../../core/secrets.ts';
import { basicCredentials } from '../basic.ts';
import { type FailureLimits, RateLimited } from '../rate-limit.ts';
import type { McpClientsStore } from './clients-store.ts';

function oauthError(res: Response, status: number, error: string, description: string): void {
  if (status === 401) res.setHeader('WWW-Authenticate', 'Basic realm="mcp"');
  res.setHeader('Cache-Control', 'no-store');
  res.status(status).json({ error, error_description: description });
}

/**
 * Client authentication for /token and /revoke, in front of the SDK's handlers: accepts
 * client_secret_basic and client_secret_post, and checks the secret against its stored hash. The
 * request goes on with the client_id in the body and no secret, which the SDK's own check (a plain
 * comparison, impossible against a hash) then treats as already authenticated. Wrong secrets count
 * against the client id and the address like those of /o/token/.
 */
export function clientAuthentication(store: McpClientsStore, failures: FailureLimits) {
  return async (req: Request, res: Response, next: NextFunction): Promise<void> => {
    res.setHeader('Access-Control-Allow-Origin', '*');
    const body = (req.body ?? {}) as Record<string, unknown>;
    let clientId = body.client_id;
    let secret = body.client_secret;
    const basic = basicCredentials(req.get('Authorization'));
    if (basic === 'malformed') {
      oauthError(res, 401, 'invalid_client', 'the Basic credentials are malformed');
      return;
    }
    if (basic) {
      if (clientId !== undefined && clientId !== basic.id) {
        oauthError(res, 400, 'invalid_request', 'client_id in the body differs from the Basic credentials');
        return;
      }
      clientId = basic.id;
      secret = basic.secret;
    }
    if (typeof clientId !== 'string') {
      next();
      return;
    }
    const expected = await store.secretHash(clientId);
    if (expected) {
      let refund: () => Promise<void>;
      try {
        refund = await failures.reserve(req.ip ?? '', `client:${clientId}`);
      } catch (err) {
        if (!(err instanceof RateLimited)) throw err;
        res.setHeader('Retry-After', String(err.retryAfterSeconds));
        oauthError(res, 429, 'too_many_requests', err.message);
        return;
      }
      if (!(typeof secret === 'string' && secret && (await verifySecret(secret, expected)))) {
        oauthError(
          res,
          401,
          'invalid_client',
          'client authentication failed: wrong or missing client secret',
        );
        return;
      }
      await refund();
    }
    const { client_secret: _checked, ...rest } = body;
    req.body = { ...rest, client_id: clientId };
    next();
  };
}
