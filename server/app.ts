import type { IncomingMessage, ServerResponse } from 'node:http';
import express, { type NextFunction, type Request, type RequestHandler, type Response } from 'express';
import helmet from 'helmet';
import { mcpBearerChallenge, mcpOAuthUrls } from '../auth/mcp-oauth/metadata.ts';
import { mcpOAuthRouter } from '../auth/mcp-oauth/router.ts';
import { authenticate, bearerChallenge, PrincipalCache, type Resource } from '../auth/principal.ts';
import { type Limits, RateLimited } from '../auth/rate-limit.ts';
import { revocationEndpoint, tokenEndpoint } from '../auth/token-endpoint.ts';
import { founderPageRouter } from '../auth/web/founder/routes.ts';
import { webRouter } from '../auth/web/routes.ts';
import { Sessions } from '../auth/web/sessions.ts';
import type { Clock } from '../core/clock.ts';
import {
  DATABASE_RETRY_AFTER_SECONDS,
  databaseErrorSummary,
  isDatabaseUnavailable,
  isUnstorableText,
} from '../core/db-errors.ts';
import type { Logger } from '../core/logger.ts';
import type { Principal } from '../core/principal.ts';
import { newId } from '../db/ids.ts';
import type { Repos } from '../db/repos/index.ts';
import { authorizeUpload, type Route, serveRoute } from '../rest/adapter.ts';
import { docsRouter } from '../rest/docs.ts';
import {
  COMPANY_LOGO_PATH,
  DOCUMENT_DOWNLOAD_PATH,
  serveCompanyLogo,
  serveDocumentDownload,
} from '../rest/download.ts';
import { frontDoorRouter } from '../rest/front-door.ts';
import { sendProblem } from '../rest/problem.ts';
import { routes } from '../rest/routes.ts';
import { multipartBody } from '../rest/upload.ts';
import type { ToolContext } from '../tools/context.ts';
import type { AnyTool } from '../tools/define.ts';
import { InsufficientScope, InvalidInput, ToolError, Unauthenticated } from '../tools/errors.ts';
import { parseToolsets, type Toolset } from '../tools/toolsets.ts';
import type { Config } from './config.ts';
import { bodyField, checkJsonBody, exactNumbers, refuseInexactNumbers } from './json-depth.ts';
import { pinoFor } from './logger.ts';
import { refuseJsonRpcBatch } from './mcp-batch.ts';
import { mcpOriginGuard } from './mcp-origin.ts';
import { isMetricsBearer, type Metrics } from './metrics.ts';

export interface AppDeps {
  config: Config;
  repos: Repos;
  clock: Clock;
  logger: Logger;
  limits: Limits;
  /** Check every tool result against its output schema (on in tests, off in production). */
  validateOutput?: boolean;
  /** Prometheus metrics; GET /metrics serves them when METRICS_TOKEN is set. */
  metrics?: Metrics;
  /** True once shutdown has begun: /readyz then answers 503 while in-flight requests finish. */
  shuttingDown?: () => boolean;
  /** The tools and routes to serve; the registry and rest/routes.ts unless a test brings its own. */
  tools?: readonly AnyTool[];
  routes?: readonly Route[];
  /** Principals resolved recently, checked per request against the database's authentication counter. */
  principals?: PrincipalCache;
}

const requestIdPattern = /^[\w.:-]{1,128}$/;

/** What a protected route does once the caller is known and within budget. */
type Serve = (ctx: ToolContext, req: Request, res: Response) => Promise<void>;

/**
 * The application in named stages, in the order a request meets them. Express 5 forwards a rejected
 * promise from an async handler to the error stage, so handlers are plain async functions.
 */
export function createApp(appDeps: AppDeps): express.Express {
  const deps: AppDeps = { ...appDeps, principals: appDeps.principals ?? new PrincipalCache() };
  const app = express();
  app.disable('x-powered-by');
  app.set('trust proxy', deps.config.trustProxy);
  app.set('etag', false);
  requestIdAndAccessLog(app, deps);
  requestMetrics(app, deps);
  securityHeaders(app);
  metricsEndpoint(app, deps);
  probes(app, deps);
  // The API before the pages: express tries each stage's routes in turn, and most requests are API
  // calls, which no page or sign-in route answers (their paths are apart).
  mcpEndpoint(app, deps);
  restRoutes(app, deps);
  frontDoor(app, deps);
  signIn(app, deps);
  notFound(app);
  errors(app, deps);
  return app;
}

/** The matched route pattern (bounded, unlike the path), or `unmatched` when no route answered. */
export function routeOf(req: Request): string {
  const path = (req.route as { path?: unknown } | undefined)?.path;
  return typeof path === 'string' ? `${req.baseUrl}${path}` : 'unmatched';
}

/**
 * One access-log line per request at info: request id, principal, route, status and duration. The
 * line's fields are known and hold no secret, so it skips the redaction every other line goes through.
 */
function requestIdAndAccessLog(app: express.Express, { logger }: AppDeps): void {
  const access = pinoFor(logger).child({}, { redact: [] });
  // The level is set at start-up: below info, a request needs no line and no listeners for one.
  const logsAccess = access.isLevelEnabled('info');
  app.use((req, res, next) => {
    const started = Date.now();
    const sent = req.headers['x-request-id'];
    const id = typeof sent === 'string' && requestIdPattern.test(sent) ? sent : newId();
    res.locals.requestId = id;
    res.setHeader('X-Request-Id', id);
    if (!logsAccess) {
      next();
      return;
    }
    let logged = false;
    // 'finish' once the response went out; 'close' alone when the client left before it did.
    const line = () => {
      if (logged) return;
      logged = true;
      access.info(
        {
          request_id: id,
          principal_id: (res.locals.principalId as string | undefined) ?? null,
          method: req.method,
          route: routeOf(req),
          status: res.statusCode,
          duration_ms: Date.now() - started,
        },
        'request',
      );
    };
    res.once('finish', line);
    res.once('close', line);
    next();
  });
}

function requestMetrics(app: express.Express, { metrics }: AppDeps): void {
  if (!metrics) return;
  app.use((req, res, next) => {
    const started = process.hrtime.bigint();
    res.on('finish', () => {
      metrics.request(
        req.method,
        routeOf(req),
        res.statusCode,
        Number(process.hrtime.bigint() - started) / 1e9,
      );
    });
    next();
  });
}

/** GET /metrics for Prometheus, behind its own bearer token; off without METRICS_TOKEN. */
function metricsEndpoint(app: express.Express, { config, metrics }: AppDeps): void {
  const token = config.metricsToken;
  if (!metrics || !token) return;
  app.get('/metrics', async (req, res) => {
    if (!isMetricsBearer(req.get('Authorization'), token)) {
      res.setHeader('WWW-Authenticate', 'Bearer realm="metrics"');
      sendProblem(res, 401, 'unauthenticated', 'send the METRICS_TOKEN as a bearer token to read /metrics');
      return;
    }
    res.type(metrics.registry.contentType).send(await metrics.registry.metrics());
  });
}

/**
 * helmet's headers (without a content security policy, which the pages set themselves). They are the
 * same on every response, so helmet runs once at start-up and one stage sets what it set.
 */
function securityHeaders(app: express.Express): void {
  const headers: [string, string][] = [];
  const capture = {
    setHeader: (name: string, value: string) => headers.push([name, value]),
    removeHeader: () => {},
  };
  helmet({ contentSecurityPolicy: false })(
    {} as IncomingMessage,
    capture as unknown as ServerResponse,
    () => {},
  );
  app.use((_req, res, next) => {
    for (const [name, value] of headers) res.setHeader(name, value);
    next();
  });
}

function frontDoor(app: express.Express, { config }: AppDeps): void {
  app.use(frontDoorRouter(() => config.publicUrl));
}

function probes(app: express.Express, { repos, shuttingDown }: AppDeps): void {
  app.get('/healthz', (_req, res) => {
    res.json({ status: 'ok' });
  });
  app.get('/readyz', async (_req, res) => {
    if (shuttingDown?.()) {
      res.status(503).json({ status: 'shutting_down' });
      return;
    }
    try {
      await repos.db.raw('select 1');
      res.json({ status: 'ok', database: 'ok' });
    } catch {
      res.status(503).json({ status: 'unavailable', database: 'unreachable' });
    }
  });
}

/** Docs, the OAuth token endpoints, sign-in for AI clients and the account pages. */
function signIn(app: express.Express, deps: AppDeps): void {
  const { config, repos, clock, logger } = deps;
  app.use(docsRouter(() => config.publicUrl));
  const form = express.urlencoded({ extended: false, limit: '16kb' });
  app.post('/o/token/', form, tokenEndpoint(repos, clock, deps.limits.failures));
  app.post('/o/revoke_token/', form, revocationEndpoint(repos, clock, deps.limits.failures));
  const publicUrl = () => config.publicUrl;
  const sessions = new Sessions(repos, clock, publicUrl);
  app.use(
    founderPageRouter({
      repos,
      clock,
      limiter: deps.limits.founderPage,
      publicUrl,
      documentStorageQuotaBytes: () => config.documentStorageQuotaBytes,
    }),
  );
  app.use(
    mcpOAuthRouter({
      repos,
      clock,
      logger,
      sessions,
      failures: deps.limits.failures,
      metadataFetches: deps.limits.metadataFetches,
      registrations: deps.limits.registrations,
      publicUrl,
      accessTokenTtlSeconds: () => config.mcpAccessTokenTtl,
      writeTools: () => config.mcpWriteTools,
      allowLoopbackMetadataUrls: () => config.mcpAllowLoopbackClientMetadata,
    }),
  );
  app.use(
    webRouter({
      repos,
      clock,
      sessions,
      failures: deps.limits.failures,
      publicUrl,
      applicationsPerUser: () => config.oauthApplicationsPerUser,
      webhookAllowPrivateUrls: () => config.webhookAllowPrivateUrls,
      logger,
      documentStorageQuotaBytes: () => config.documentStorageQuotaBytes,
      founderLinkDaysAfterDue: () => config.founderLinkDaysAfterDue,
    }),
  );
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

// Not strict: a JSON `null` body is valid (the beta reads take `null` for no filter). `fieldOf` names a
// body path as the field a refusal of an inexact number names.
function jsonBodyUpTo(limit: string, fieldOf = bodyField): RequestHandler[] {
  return [
    requireJson,
    express.json({ limit, strict: false, reviver: exactNumbers }),
    checkJsonBody,
    refuseInexactNumbers(fieldOf),
  ];
}

/** An MCP tool call's arguments are named as the tool's input fields. */
const mcpField = (path: PropertyKey[]) =>
  path[0] === 'params' && path[1] === 'arguments' ? bodyField(path.slice(2)) : bodyField(path);

/** A route's body path named as the tool's input field: merged into the input, or under one field. */
function routeField(route: Route): (path: PropertyKey[]) => string {
  const body = route.body;
  return body && body !== 'merge' ? (path) => bodyField([body.field, ...path]) : bodyField;
}

/** Authentication: who is calling, from the bearer token, for the REST API or for /mcp. */
function authenticateRequest(
  { config, repos, clock, principals }: AppDeps,
  req: Request,
  resource: Resource,
) {
  const options = resource === 'mcp' ? { mcpResource: mcpOAuthUrls(config.publicUrl).resource } : {};
  return authenticate(repos, clock, req.get('Authorization'), resource, options, principals);
}

/** Rate limit: counts the request against the principal's per-minute budget and reports it in headers. */
async function rateLimit({ limits }: AppDeps, principal: Principal, res: Response): Promise<void> {
  const state = await limits.requests.consume(principal.key);
  res.setHeader('RateLimit-Limit', String(state.limit));
  res.setHeader('RateLimit-Remaining', String(state.remaining));
  res.setHeader('RateLimit-Reset', String(state.resetSeconds));
}

function toolContext(
  { config, repos, clock, logger, metrics }: AppDeps,
  res: Response,
  principal: Principal,
): ToolContext {
  const requestId = res.locals.requestId as string;
  return {
    onToolCall: metrics?.toolCall,
    principal,
    repos,
    clock,
    logger: lazyChild(logger, { request_id: requestId }),
    requestId,
    publicUrl: config.publicUrl,
    documentStorageQuotaBytes: config.documentStorageQuotaBytes,
    webhookAllowPrivateUrls: config.webhookAllowPrivateUrls,
    founderLinkDaysAfterDue: config.founderLinkDaysAfterDue,
  };
}

/** A child logger made on its first line: most requests never log through theirs. */
function lazyChild(logger: Logger, fields: Record<string, unknown>): Logger {
  let child: Logger | undefined;
  const get = () => {
    child ??= logger.child(fields);
    return child;
  };
  return {
    debug: (msg, f) => get().debug(msg, f),
    info: (msg, f) => get().info(msg, f),
    warn: (msg, f) => get().warn(msg, f),
    error: (msg, f) => get().error(msg, f),
    child: (f) => get().child(f),
  };
}

/**
 * The one sequence every protected route runs: authenticate and count the request before its body is
 * read or any work is done, then the route's own body handling, then serve with a context.
 */
function protectedRoute(
  deps: AppDeps,
  resource: Resource,
  serve: Serve,
  body: readonly RequestHandler[] = [],
): RequestHandler[] {
  const admit: RequestHandler = async (req, res, next) => {
    const principal = await authenticateRequest(deps, req, resource);
    res.locals.principalId = principal.key;
    await rateLimit(deps, principal, res);
    res.locals.principal = principal;
    next();
  };
  const run: RequestHandler = async (req, res) => {
    await serve(toolContext(deps, res, res.locals.principal as Principal), req, res);
  };
  return [admit, ...body, run];
}

function methodNotAllowed(app: express.Express, path: string, methods: string[], detail: string): void {
  app.all(path, (_req, res) => {
    res.setHeader('Allow', methods.join(', '));
    sendProblem(res, 405, 'method_not_allowed', detail);
  });
}

/** The MCP server (the SDK and the tool catalogue) is loaded by the first /mcp request, not at start-up. */
let mcpModule: Promise<typeof import('../mcp/server.ts')> | undefined;
const loadMcp = () => {
  mcpModule ??= import('../mcp/server.ts');
  return mcpModule;
};

/** The toolsets a connection lists: `/mcp?toolsets=a,b` when given, else MCP_TOOLSETS. */
function chosenToolsets(req: Request, config: Config): Toolset[] {
  const raw = req.query.toolsets;
  if (raw === undefined) return config.mcpToolsets;
  const chosen = parseToolsets(Array.isArray(raw) ? raw.join(',') : String(raw));
  if ('error' in chosen) throw InvalidInput.field('toolsets', chosen.error);
  if (chosen.toolsets.includes('writes') && !config.mcpWriteTools)
    throw InvalidInput.field(
      'toolsets',
      'writes is not offered here: this server runs without MCP_WRITE_TOOLS',
    );
  return chosen.toolsets;
}

function mcpEndpoint(app: express.Express, deps: AppDeps): void {
  const options = {
    writeTools: deps.config.mcpWriteTools,
    validateOutput: deps.validateOutput,
    tools: deps.tools,
  };
  app.use('/mcp', mcpOriginGuard(deps.config));
  app.post(
    '/mcp',
    protectedRoute(
      deps,
      'mcp',
      async (ctx, req, res) => {
        const toolsets = chosenToolsets(req, deps.config);
        const { checkMcpCallScope, handleMcpRequest } = await loadMcp();
        const chosen = { ...options, toolsets };
        checkMcpCallScope(req.body, ctx.principal, chosen);
        return handleMcpRequest(ctx, chosen, req, res, req.body);
      },
      [...jsonBodyUpTo('1mb', mcpField), refuseJsonRpcBatch],
    ),
  );
  methodNotAllowed(app, '/mcp', ['POST'], 'the MCP endpoint is stateless: send JSON-RPC messages with POST');
}

function restRoutes(app: express.Express, deps: AppDeps): void {
  app.get(DOCUMENT_DOWNLOAD_PATH, protectedRoute(deps, 'rest', serveDocumentDownload));
  app.get(COMPANY_LOGO_PATH, protectedRoute(deps, 'rest', serveCompanyLogo));
  const methodsByPath = new Map<string, string[]>([
    [DOCUMENT_DOWNLOAD_PATH, ['GET']],
    [COMPANY_LOGO_PATH, ['GET']],
  ]);
  // An upload is authorised on the principal protectedRoute admitted, before its file is read.
  const contextOf = (res: Response) => toolContext(deps, res, res.locals.principal as Principal);
  for (const route of deps.routes ?? routes) {
    methodsByPath.set(route.path, [...(methodsByPath.get(route.path) ?? []), route.method]);
    const serve: Serve = (ctx, req, res) => serveRoute(route as Route, ctx, req, res);
    if (route.method === 'GET') app.get(route.path, protectedRoute(deps, 'rest', serve));
    else {
      const method = route.method.toLowerCase() as 'post' | 'patch' | 'put' | 'delete';
      const body = route.upload
        ? [
            multipartBody(route.upload, (req, res, soFar) =>
              authorizeUpload(route as Route, contextOf(res), req, soFar),
            ),
          ]
        : jsonBodyUpTo(route.bodyLimit ?? '1mb', routeField(route as Route));
      app[method](route.path, protectedRoute(deps, 'rest', serve, body));
    }
  }
  for (const [path, methods] of methodsByPath) {
    methodNotAllowed(app, path, methods, `this path accepts ${methods.join(', ')}`);
  }
}

function notFound(app: express.Express): void {
  app.use((req, res) => {
    sendProblem(
      res,
      404,
      'not_found',
      `no route for ${req.method} ${req.path}; see /openapi.json for the routes`,
    );
  });
}

/** A 401 or 403 with its bearer challenge (the MCP one on /mcp); false for any other error. */
function answerAuthError(err: unknown, req: Request, res: Response, publicUrl: string): boolean {
  if (err instanceof Unauthenticated) {
    // A 401 from /mcp names the resource metadata, so a client can discover where to sign in.
    const challenge =
      req.path === '/mcp'
        ? mcpBearerChallenge(publicUrl, err.bearerError, err.message)
        : bearerChallenge('realm="portfolio"', err.bearerError, err.message);
    res.setHeader('WWW-Authenticate', challenge);
    sendProblem(res, 401, err.code, err.message);
    return true;
  }
  if (err instanceof InsufficientScope) {
    // RFC 6750 §3.1: the challenge names the scope that would have been enough.
    const challenge =
      req.path === '/mcp'
        ? mcpBearerChallenge(publicUrl, 'insufficient_scope', err.message, err.requiredScope)
        : bearerChallenge('realm="portfolio"', 'insufficient_scope', err.message, err.requiredScope);
    res.setHeader('WWW-Authenticate', challenge);
    sendProblem(res, 403, err.code, err.message);
    return true;
  }
  return false;
}

/** A 4xx for a request body or path that could not be read; false for any other error. */
function answerUnreadable(err: unknown, res: Response): boolean {
  const e = err as { type?: string; status?: number; expose?: boolean; message?: string };
  if (e?.type === 'entity.too.large') {
    sendProblem(res, 413, 'payload_too_large', 'the request body is larger than 1 MiB');
    return true;
  }
  if (e?.type === 'entity.parse.failed') {
    sendProblem(res, 400, 'invalid_parameter', 'the request body is not valid JSON', [
      { field: 'body', message: 'invalid JSON' },
    ]);
    return true;
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
    return true;
  }
  return false;
}

/** Every error, typed or not, becomes one problem+json answer here. */
function errors(app: express.Express, { config, logger, metrics }: AppDeps): void {
  app.use((err: unknown, req: Request, res: Response, _next: NextFunction) => {
    if (answerAuthError(err, req, res, config.publicUrl)) return;
    if (err instanceof RateLimited) {
      metrics?.rateLimited();
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
    if (answerUnreadable(err, res)) return;
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
      logger.warn('database unavailable', { request_id: res.locals.requestId, ...databaseErrorSummary(err) });
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
}
