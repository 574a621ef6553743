import { authorizationHandler } from '@modelcontextprotocol/sdk/server/auth/handlers/authorize.js';
import { clientRegistrationHandler } from '@modelcontextprotocol/sdk/server/auth/handlers/register.js';
import { revocationHandler } from '@modelcontextprotocol/sdk/server/auth/handlers/revoke.js';
import { tokenHandler } from '@modelcontextprotocol/sdk/server/auth/handlers/token.js';
import express, { type Request, type Response, type Router } from 'express';
import type { Clock } from '../../core/clock.ts';
import type { Logger } from '../../core/logger.ts';
import type { Repos } from '../../db/repos/index.ts';
import type { FailureLimits } from '../rate-limit.ts';
import type { Sessions } from '../web/sessions.ts';
import { clientAuthentication } from './client-auth.ts';
import { McpClientsStore } from './clients-store.ts';
import { authorizationServerMetadata, protectedResourceMetadata } from './metadata.ts';
import { McpOAuthProvider } from './provider.ts';

export interface McpOAuthOptions {
  repos: Repos;
  clock: Clock;
  logger: Logger;
  sessions: Sessions;
  /** Wrong client secrets per client id and address (shared with /o/token/). */
  failures: FailureLimits;
  /** Read on every request, so the values may be settled after the app is built. */
  publicUrl: () => string;
  accessTokenTtlSeconds: () => number;
  writeTools: () => boolean;
  allowLoopbackMetadataUrls: () => boolean;
}

/**
 * The authorization server of the MCP endpoint, mounted at the root: RFC 9728 and RFC 8414
 * metadata, and the SDK's authorize, token, register and revoke handlers over our provider. The
 * SDK's per-address rate limits are off (clients such as Claude register on every connection);
 * failures are limited instead: wrong client secrets here, wrong passwords on the login page.
 */
export function mcpOAuthRouter(options: McpOAuthOptions): Router {
  const clientsStore = new McpClientsStore({
    repos: options.repos,
    clock: options.clock,
    logger: options.logger,
    allowLoopbackMetadataUrls: options.allowLoopbackMetadataUrls,
  });
  const provider = new McpOAuthProvider({
    repos: options.repos,
    clock: options.clock,
    sessions: options.sessions,
    clientsStore,
    publicUrl: options.publicUrl,
    accessTokenTtlSeconds: options.accessTokenTtlSeconds,
    writeTools: options.writeTools,
  });

  const router = express.Router();
  const metadata = (build: (publicUrl: string) => object) => (_req: Request, res: Response) => {
    res.setHeader('Access-Control-Allow-Origin', '*');
    res.setHeader('Cache-Control', 'public, max-age=3600');
    res.json(build(options.publicUrl()));
  };
  // Path form first (RFC 9728 §3.1 for the resource /mcp), and the root form for older clients.
  router.get(
    ['/.well-known/oauth-protected-resource/mcp', '/.well-known/oauth-protected-resource'],
    metadata(protectedResourceMetadata),
  );
  router.get('/.well-known/oauth-authorization-server', metadata(authorizationServerMetadata));

  const form = express.urlencoded({ extended: false, limit: '16kb' });
  router.use('/authorize', authorizationHandler({ provider, rateLimit: false }));
  router.use(
    '/token',
    form,
    clientAuthentication(clientsStore, options.failures),
    tokenHandler({ provider, rateLimit: false }),
  );
  router.use(
    '/register',
    clientRegistrationHandler({ clientsStore, clientSecretExpirySeconds: 0, rateLimit: false }),
  );
  router.use(
    '/revoke',
    form,
    clientAuthentication(clientsStore, options.failures),
    revocationHandler({ provider, rateLimit: false }),
  );
  return router;
}
