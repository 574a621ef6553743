import express, {
  type NextFunction,
  type Request,
  type RequestHandler,
  type Response,
  type Router,
} from 'express';
import type { Clock } from '../../core/clock.ts';
import type { Logger } from '../../core/logger.ts';
import type { Repos } from '../../db/repos/index.ts';
import { type FailureLimits, type Limiter, RateLimited } from '../rate-limit.ts';
import type { Sessions } from '../web/sessions.ts';
import { clientAuthentication } from './client-auth.ts';
import { McpClientsStore } from './clients-store.ts';
import type { Resolve } from './document-fetch.ts';
import { authorizationServerMetadata, protectedResourceMetadata } from './metadata.ts';
import { McpOAuthProvider } from './provider.ts';

export interface McpOAuthOptions {
  repos: Repos;
  clock: Clock;
  logger: Logger;
  sessions: Sessions;
  /** Wrong client secrets per client id and address (shared with /o/token/). */
  failures: FailureLimits;
  /** Client metadata document fetches per address. */
  metadataFetches: Limiter;
  /** Registrations per address. */
  registrations: Limiter;
  /** Read on every request, so the values may be settled after the app is built. */
  publicUrl: () => string;
  accessTokenTtlSeconds: () => number;
  writeTools: () => boolean;
  allowLoopbackMetadataUrls: () => boolean;
  /** How metadata document hosts are resolved (tests point names at any address); dns.lookup by default. */
  resolve?: Resolve;
}

function tooMany(res: Response, err: RateLimited): void {
  res.setHeader('Retry-After', String(err.retryAfterSeconds));
  res.setHeader('Cache-Control', 'no-store');
  res.setHeader('Access-Control-Allow-Origin', '*');
  res.status(429).json({ error: 'too_many_requests', error_description: err.message });
}

/** Counts one request against `limiter` for the caller's address, when `applies` says so. */
function limitPerAddress(limiter: Limiter, applies: (req: Request) => Promise<boolean> | boolean) {
  return async (req: Request, res: Response, next: NextFunction): Promise<void> => {
    if (await applies(req)) {
      try {
        await limiter.consume(`ip:${req.ip}`);
      } catch (err) {
        if (!(err instanceof RateLimited)) throw err;
        tooMany(res, err);
        return;
      }
    }
    next();
  };
}

/** A handler built on its first request: the SDK's handlers (and cors, their rate limiter) load only when used. */
function onFirstUse(build: () => Promise<RequestHandler>): RequestHandler {
  let handler: Promise<RequestHandler> | undefined;
  return (req, res, next) => {
    handler ??= build();
    handler.then((h) => h(req, res, next)).catch(next);
  };
}

/**
 * The authorization server of the MCP endpoint, mounted at the root: RFC 9728 and RFC 8414
 * metadata, and the SDK's authorize, token, register and revoke handlers over our provider. The
 * SDK's own rate limits are off in favour of ours, which Redis can share between nodes: registrations
 * and metadata document fetches per address, wrong client secrets per client and address.
 */
export function mcpOAuthRouter(options: McpOAuthOptions): Router {
  const clientsStore = new McpClientsStore({
    repos: options.repos,
    clock: options.clock,
    logger: options.logger,
    allowLoopbackMetadataUrls: options.allowLoopbackMetadataUrls,
    resolve: options.resolve,
  });
  // Fetching a metadata document costs us a request to somewhere else: count those per address.
  const limitFetches = limitPerAddress(options.metadataFetches, (req) => {
    const body = (req.body ?? {}) as Record<string, unknown>;
    const clientId = req.query.client_id ?? body.client_id;
    return typeof clientId === 'string' && clientsStore.fetchDue(clientId);
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
  router.use(
    '/authorize',
    form,
    limitFetches,
    onFirstUse(async () => {
      const { authorizationHandler } = await import(
        '@modelcontextprotocol/sdk/server/auth/handlers/authorize.js'
      );
      return authorizationHandler({ provider, rateLimit: false });
    }),
  );
  router.use(
    '/token',
    form,
    limitFetches,
    clientAuthentication(clientsStore, options.failures),
    onFirstUse(async () => {
      const { tokenHandler } = await import('@modelcontextprotocol/sdk/server/auth/handlers/token.js');
      return tokenHandler({ provider, rateLimit: false });
    }),
  );
  router.use(
    '/register',
    limitPerAddress(options.registrations, (req) => req.method === 'POST'),
    onFirstUse(async () => {
      const { clientRegistrationHandler } = await import(
        '@modelcontextprotocol/sdk/server/auth/handlers/register.js'
      );
      return clientRegistrationHandler({ clientsStore, clientSecretExpirySeconds: 0, rateLimit: false });
    }),
  );
  router.use(
    '/revoke',
    form,
    clientAuthentication(clientsStore, options.failures),
    onFirstUse(async () => {
      const { revocationHandler } = await import('@modelcontextprotocol/sdk/server/auth/handlers/revoke.js');
      return revocationHandler({ provider, rateLimit: false });
    }),
  );
  return router;
}
