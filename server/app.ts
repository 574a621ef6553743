import express, { type NextFunction, type Request, type Response } from 'express';
import helmet from 'helmet';
import { mcpBearerChallenge, mcpOAuthUrls } from '../auth/mcp-oauth/metadata.ts';
import { mcpOAuthRouter } from '../auth/mcp-oauth/router.ts';
import { authenticate, bearerChallenge } from '../auth/principal.ts';
import { type Limits, RateLimited } from '../auth/rate-limit.ts';
import { revocationEndpoint, tokenEndpoint } from '../auth/token-endpoint.ts';
import { webRouter } from '../auth/web/routes.ts';
import { Sessions } from '../auth/web/sessions.ts';
import type { Clock } from '../core/clock.ts';
import type { Logger } from '../core/logger.ts';
import { newId } from '../db/ids.ts';
import type { Repos } from '../db/repos/index.ts';
import { type Route, serveRoute } from '../rest/adapter.ts';
import { docsRouter } from '../rest/docs.ts';
import { documentDownloadRoute } from '../rest/download.ts';
import { sendProblem } from '../rest/problem.ts';
import { routes } from '../rest/routes.ts';
import type { ToolContext } from '../tools/context.ts';
import type { AnyTool } from '../tools/define.ts';
import { ToolError, Unauthenticated } from '../tools/errors.ts';
import { handleMcpRequest } from '../tools/mcp.ts';
import type { Config } from './config.ts';
import { DATABASE_RETRY_AFTER_SECONDS, isDatabaseUnavailable, isUnstorableText } from './db-errors.ts';
import { rejectDeepJson } from './json-depth.ts';
import { mcpOriginGuard } from './mcp-origin.ts';

export interface AppDeps {
  config: Config;
  repos: Repos;
  clock: Clock;
  logger: Logger;
  limits: Limits;
  /** Check every tool result against its output schema (on in tests, off in production). */
  validateOutput?: boolean;
  /** The tools and routes to serve; the registry and rest/routes.ts unless a test brings its own. */
  tools?: readonly AnyTool[];
  routes?: readonly Route[];
}

const requestIdPattern = /^[\w.:-]{1,128}$/;

type Handler = (req: Request, res: Response) => Promise<void>;

/** Wraps an async handler so its failures reach the error middleware. */
function wrap(handler: Handler) {
  return (req: Request, res: Response, next: NextFunction) => {
    handler(req, res).catch(next);
  };
}

export function createApp(deps: AppDeps): express.Express {
  const { config, repos, clock, logger } = deps;
  const app = express();
  app.disable('x-powered-by');
  app.set('trust proxy', config.trustProxy);
  app.set('etag', false);

  app.use((req, res, next) => {
    const sent = req.get('X-Request-Id');
    const id = sent && requestIdPattern.test(sent) ? sent : newId();
    res.locals.requestId = id;
    res.setHeader('X-Request-Id', id);
    const started = process.hrtime.bigint();
    res.on('finish', () => {
      logger.debug('request', {
        request_id: id,
        method: req.method,
        path: req.path,
        status: res.statusCode,
        ms: Number(process.hrtime.bigint() - started) / 1e6,
      });
    });
    next();
  });
  app.use(helmet({ contentSecurityPolicy: false }));

  app.get('/healthz', (_req, res) => {
    res.json({ status: 'ok' });
  });
  app.get(
    '/readyz',
    wrap(async (_req, res) => {
      try {
        await repos.db.raw('select 1');
        res.json({ status: 'ok', database: 'ok' });
      } catch {
        res.status(503).json({ status: 'unavailable', database: 'unreachable' });
      }
    }),
  );

  app.use(docsRouter(() => config.publicUrl));

  const form = express.urlencoded({ extended: false, limit: '16kb' });
  app.post('/o/token/', form, wrap(tokenEndpoint(repos, clock, deps.limits.failures)));
  app.post('/o/revoke_token/', form, wrap(revocationEndpoint(repos, clock, deps.limits.failures)));

  /** Counts the request against the principal's per-minute budget and reports it in headers. */
  async function limit(principal: ToolContext['principal'], res: Response): Promise<void> {
    const state = await deps.limits.requests.consume(principal.key);
    res.setHeader('RateLimit-Limit', String(state.limit));
    res.setHeader('RateLimit-Remaining', String(state.remaining));
    res.setHeader('RateLimit-Reset', String(state.resetSeconds));
  }

  /** Where a JSON body is expected, any other content type is a 415. */
  function requireJson(req: Request, res: Response, next: NextFunction): void {
    const hasBody = Number(req.get('Content-Length') ?? 0) > 0 || req.get('Transfer-Encoding') !== undefined;
    if (hasBody && !req.is('application/json')) {
      sendProblem(res, 415, 'unsupported_media_type', 'send the request body as application/json');
      return;
    }
    next();
  }

  function context(res: Response, principal: ToolContext['principal']): ToolContext {
    const requestId = res.locals.requestId as string;
    return {
      principal,
      repos,
      clock,
      logger: logger.child({ request_id: requestId }),
      requestId,
      publicUrl: config.publicUrl,
    };
  }

  // Not strict: a JSON `null` body is valid (the beta reads take `null` for no filter).
  const parseJson = express.json({ limit: '1mb', strict: false });
  const json = [requireJson, parseJson, rejectDeepJson];

  // ---- MCP: sign-in for AI clients (OAuth 2.1 authorization server), account pages, /mcp ----
  const publicUrl = () => config.publicUrl;
  const sessions = new Sessions(repos, clock, publicUrl);
  app.use(
    mcpOAuthRouter({
      repos,
      clock,
      logger,
      sessions,
      failures: deps.limits.failures,
      publicUrl,
      accessTokenTtlSeconds: () => config.mcpAccessTokenTtl,
      writeTools: () => config.mcpWriteTools,
      allowLoopbackMetadataUrls: () => config.mcpAllowLoopbackClientMetadata,
    }),
  );
  app.use(webRouter({ repos, clock, sessions, failures: deps.limits.failures, publicUrl }));

  app.use('/mcp', mcpOriginGuard(config));
  app.post(
    '/mcp',
    json,
    wrap(async (req, res) => {
      const principal = await authenticate(repos, clock, req.get('Authorization'), 'mcp', {
        mcpResource: mcpOAuthUrls(config.publicUrl).resource,
      });
      await limit(principal, res);
      await handleMcpRequest(
        context(res, principal),
        { writeTools: config.mcpWriteTools, validateOutput: deps.validateOutput, tools: deps.tools },
        req,
        res,
        req.body,
      );
    }),
  );
  app.all('/mcp', (_req, res) => {
    res.setHeader('Allow', 'POST');
    sendProblem(
      res,
      405,
      'method_not_allowed',
      'the MCP endpoint is stateless: send JSON-RPC messages with POST',
    );
  });
  // ---- end of MCP ----

  app.use(documentDownloadRoute({ ...deps, limit }));
  const methodsByPath = new Map<string, string[]>();
  for (const route of deps.routes ?? routes) {
    methodsByPath.set(route.path, [...(methodsByPath.get(route.path) ?? []), route.method]);
    const handler = wrap(async (req, res) => {
      const principal = await authenticate(repos, clock, req.get('Authorization'), 'rest');
      await limit(principal, res);
      await serveRoute(route as Route, context(res, principal), req, res);
    });
    const method = route.method.toLowerCase() as 'get' | 'post' | 'patch';
    if (route.method === 'GET') app.get(route.path, handler);
    else app[method](route.path, json, handler);
  }
  for (const [path, methods] of methodsByPath) {
    app.all(path, (_req, res) => {
      res.setHeader('Allow', methods.join(', '));
      sendProblem(res, 405, 'method_not_allowed', `this path accepts ${methods.join(', ')}`);
    });
  }

  app.use((req, res) => {
    sendProblem(
      res,
      404,
      'not_found',
      `no route for ${req.method} ${req.path}; see /openapi.json for the routes`,
    );
  });

  app.use((err: unknown, req: Request, res: Response, _next: NextFunction) => {
    if (err instanceof Unauthenticated) {
      // A 401 from /mcp names the resource metadata, so a client can discover where to sign in.
      const challenge =
        req.path === '/mcp'
          ? mcpBearerChallenge(config.publicUrl, err.bearerError, err.message)
          : bearerChallenge('realm="portfolio"', err.bearerError, err.message);
      res.setHeader('WWW-Authenticate', challenge);
      sendProblem(res, 401, err.code, err.message);
      return;
    }
    if (err instanceof RateLimited) {
      res.setHeader('RateLimit-Limit', String(err.limit));
      res.setHeader('RateLimit-Remaining', '0');
      res.setHeader('RateLimit-Reset', String(err.retryAfterSeconds));
      res.setHeader('Retry-After', String(err.retryAfterSeconds));
      sendProblem(res, 429, err.code, err.message);
      return;
    }
    if (err instanceof ToolError) {
      sendProblem(res, err.status, err.code, err.message, err.errors);
      return;
    }
    const e = err as { type?: string; status?: number; expose?: boolean; message?: string };
    if (e?.type === 'entity.too.large') {
      sendProblem(res, 413, 'payload_too_large', 'the request body is larger than 1 MiB');
      return;
    }
    if (e?.type === 'entity.parse.failed') {
      sendProblem(res, 400, 'invalid_parameter', 'the request body is not valid JSON', [
        { field: 'body', message: 'invalid JSON' },
      ]);
      return;
    }
    // Express and body-parser mark a malformed request with a 4xx status (a path that is not valid
    // percent-encoding, an unsupported charset): answer it, never a 500.
    if (typeof e?.status === 'number' && e.status >= 400 && e.status < 500) {
      const code =
        e.status === 413
          ? 'payload_too_large'
          : e.status === 415
            ? 'unsupported_media_type'
            : 'invalid_parameter';
      const reason = e.expose === true && e.message ? `: ${e.message}` : '';
      sendProblem(res, e.status, code, `the request could not be read${reason}; check its encoding`);
      return;
    }
    if (isUnstorableText(err)) {
      sendProblem(
        res,
        400,
        'invalid_parameter',
        'the request holds text that cannot be stored (a NUL character or invalid Unicode); remove it',
      );
      return;
    }
    if (isDatabaseUnavailable(err)) {
      logger.warn('database unavailable', { request_id: res.locals.requestId, error: String(err) });
      if (res.headersSent) return;
      res.setHeader('Retry-After', String(DATABASE_RETRY_AFTER_SECONDS));
      sendProblem(res, 503, 'service_unavailable', 'the database is unavailable; retry in a few seconds');
      return;
    }
    logger.error('unhandled error', {
      request_id: res.locals.requestId,
      error: String((err as Error)?.stack ?? err),
    });
    if (res.headersSent) return;
    sendProblem(res, 500, 'internal', `an internal error occurred; quote request id ${res.locals.requestId}`);
  });

  return app;
}
