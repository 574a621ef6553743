import { once } from 'node:events';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { setTimeout as delay } from 'node:timers/promises';
import type { Knex } from 'knex';
import { createAlertWorker } from '../alerts/worker.ts';
import { createLimits, type Limits } from '../auth/rate-limit.ts';
import type { Clock } from '../core/clock.ts';
import { systemClock } from '../core/clock.ts';
import { databaseErrorSummary } from '../core/db-errors.ts';
import type { Logger } from '../core/logger.ts';
import { migrateLatest, openDb } from '../db/knex.ts';
import { DEFAULT_PRUNE_WINDOWS, pruneExpired } from '../db/prune.ts';
import { createRepos, type Repos } from '../db/repos/index.ts';
import { smtpSender } from '../mail/transport.ts';
import { createMailWorker } from '../mail/worker.ts';
import { createParseWorker, idleWorker } from '../parsing/worker.ts';
import { finishParse } from '../services/document-parsing.ts';
import { createProposer } from '../services/extraction/propose.ts';
import { informationReminders } from '../services/information-reminders.ts';
import { createReminderPass } from '../services/reminders.ts';
import { createDispatcher } from '../webhooks/dispatcher.ts';
import { type AppDeps, createApp } from './app.ts';
import { answerClientError } from './client-error.ts';
import type { Config } from './config.ts';
import { createLogger } from './logger.ts';
import { createMetrics, type Metrics } from './metrics.ts';
import { selfTest } from './self-test.ts';

export interface RunningServer {
  url: string;
  port: number;
  server: Server;
  db: Knex;
  repos: Repos;
  /** Where METRICS_PORT serves /metrics, when set. */
  metricsUrl: string | undefined;
  /** Drains (/readyz at 503), stops accepting connections, lets in-flight requests finish, closes the database. */
  close(): Promise<void>;
}

export interface StartOptions {
  clock?: Clock;
  logger?: Logger;
  validateOutput?: boolean;
  /** An open, migrated database to serve instead of opening (and migrating) config.databaseUrl. */
  db?: Knex;
  limits?: Limits;
  tools?: AppDeps['tools'];
  routes?: AppDeps['routes'];
}

/** /metrics alone on METRICS_PORT (same host), for a scraper that reaches only that port. */
async function serveMetrics(metrics: Metrics, config: Config): Promise<Server> {
  const server = createServer((req, res) => {
    if (req.method !== 'GET' || (req.url ?? '').split('?')[0] !== '/metrics') {
      res.writeHead(404, { 'Content-Type': 'text/plain' }).end('not found: GET /metrics\n');
      return;
    }
    metrics.registry.metrics().then(
      (text) => res.writeHead(200, { 'Content-Type': metrics.registry.contentType }).end(text),
      () => res.writeHead(500).end(),
    );
  });
  server.listen(config.metricsPort, config.host);
  await once(server, 'listening');
  return server;
}

/**
 * Sends the outbox's mail from this node; every node may, since messages are claimed with a lease.
 * Without SMTP_URL the messages are held instead, for the operator to read with `portfolio outbox`.
 */
function startMailWorker(config: Config, repos: Repos, clock: Clock, logger: Logger, metrics: Metrics) {
  const sender = config.smtpUrl
    ? smtpSender({ url: config.smtpUrl, from: config.mailFrom, timeoutMs: config.mailTimeoutSeconds * 1000 })
    : undefined;
  if (!sender) logger.info('SMTP_URL is not set: outbound mail is held in the outbox ("portfolio outbox")');
  const worker = createMailWorker({
    repo: repos.mail,
    clock,
    logger,
    sender,
    pollMs: config.mailPollIntervalSeconds * 1000,
    leaseMs: config.mailLeaseSeconds * 1000,
    retryBaseSeconds: config.mailRetryBaseSeconds,
    maxAttempts: config.mailMaxAttempts,
    onOutcome: metrics.mailOutcome,
  });
  worker.start();
  return worker;
}

/** The rate limits of `config`, shared through Redis when it is configured. */
function limitsOf(config: Config, logger: Logger): Promise<Limits> {
  return createLimits(
    {
      perMinute: config.rateLimitPerMinute,
      registrationsPerMinute: config.mcpRegistrationsPerMinute,
      founderPagePerMinute: config.founderPagePerMinute,
      redisUrl: config.redisUrl,
    },
    logger,
  );
}

/** What the background workers run over. */
interface WorkerDeps {
  db: Knex;
  repos: Repos;
  clock: Clock;
  logger: Logger;
  metrics: Metrics;
}

/**
 * Starts the background work `config` turns on: the prune schedule, document parsing, alerts,
 * webhook delivery, mail and reminders. `stop` stops them all at once and resolves when each has
 * finished what it was doing.
 */
function startWorkers(config: Config, deps: WorkerDeps): { stop(): Promise<void> } {
  const { db, repos, clock, logger, metrics } = deps;
  let pruning: Promise<void> | undefined;
  const prune = () => {
    pruning ??= pruneExpired(db, clock.now(), {
      ...DEFAULT_PRUNE_WINDOWS,
      eventsRetentionMs: config.eventsRetentionDays * 24 * 60 * 60 * 1000,
      mailRetentionMs: config.mailRetentionDays * 24 * 60 * 60 * 1000,
    })
      .then((deleted) => logger.info('pruned expired rows', { ...deleted }))
      .catch((err: unknown) => logger.warn('prune failed', databaseErrorSummary(err)))
      .finally(() => {
        pruning = undefined;
      });
  };
  // Unref'd: the schedule never keeps a process alive on its own.
  const pruneTimer =
    config.pruneIntervalSeconds > 0
      ? setInterval(prune, config.pruneIntervalSeconds * 1000).unref()
      : undefined;
  const parser = config.documentParsing
    ? createParseWorker({
        repo: repos.documentParsing,
        finish: (job, outcome, now) => finishParse(repos, job, outcome, now),
        clock,
        logger,
        propose: createProposer(db, clock),
        pollMs: config.documentParseIntervalSeconds * 1000,
        leaseMs: config.documentParseLeaseSeconds * 1000,
        limits: {
          timeoutMs: config.documentParseTimeoutSeconds * 1000,
          memoryMb: config.documentParseMemoryMb,
        },
      })
    : idleWorker;
  parser.start();
  const alerts = config.alerts
    ? createAlertWorker({ repos, clock, logger, intervalMs: config.alertsIntervalSeconds * 1000 })
    : undefined;
  alerts?.start();
  // Every node may deliver: deliveries are claimed with a lease, so none is sent twice but after a crash.
  const webhooks = config.webhookDelivery
    ? createDispatcher({
        repo: repos.webhooks,
        clock,
        logger,
        pollMs: config.webhookPollIntervalSeconds * 1000,
        leaseMs: config.webhookLeaseSeconds * 1000,
        retryBaseSeconds: config.webhookRetryBaseSeconds,
        maxAttempts: config.webhookMaxAttempts,
        post: {
          allowPrivate: config.webhookAllowPrivateUrls,
          timeoutMs: config.webhookTimeoutSeconds * 1000,
          maxResponseBytes: 64 * 1024,
        },
        onOutcome: metrics.webhookDelivery,
      })
    : undefined;
  webhooks?.start();
  const mail = config.mailDelivery ? startMailWorker(config, repos, clock, logger, metrics) : undefined;
  // Every node may run the pass: a firm's turn is one node's at a time, and each reminder has a dedupe key.
  const reminders = config.reminders
    ? createReminderPass({
        repos,
        clock,
        logger,
        intervalMs: config.remindersIntervalSeconds * 1000,
        remindFirm: informationReminders(() => config),
      })
    : undefined;
  reminders?.start();
  return {
    stop() {
      clearInterval(pruneTimer);
      const stopping = [parser.stop(), alerts?.stop(), webhooks?.stop(), mail?.stop(), reminders?.stop()];
      return (async () => {
        await pruning;
        for (const stopped of stopping) await stopped;
      })();
    },
  };
}

export async function startServer(config: Config, options: StartOptions = {}): Promise<RunningServer> {
  const logger = options.logger ?? createLogger(config.logLevel, { format: config.logFormat });
  const db =
    options.db ?? openDb(config.databaseUrl, { sqliteSynchronous: config.sqliteSynchronous, logger });
  // A database handed in was migrated by its owner (the CLI migrates before every command).
  if (!options.db) await migrateLatest(db);
  // Runs while the rest starts (loading the MCP SDK takes a moment); awaited before listening.
  const checked = selfTest(db);
  // Until then a failure is only the awaited one's to report.
  checked.catch(() => {});
  const repos = createRepos(db);
  const clock = options.clock ?? systemClock;
  const limits = options.limits ?? (await limitsOf(config, logger));
  // Rate limits are shared from the first request on when Redis answers within 2 s of start-up.
  await limits.connected(2000);
  let closing: Promise<void> | undefined;
  const metrics = createMetrics(db, repos, clock);
  const app = createApp({
    metrics,
    shuttingDown: () => closing !== undefined,
    limits,
    config,
    repos,
    clock,
    logger,
    validateOutput: options.validateOutput,
    tools: options.tools,
    routes: options.routes,
  });
  await checked.catch(async (err: unknown) => {
    await limits.close();
    throw err;
  });
  const server = app.listen(config.port, config.host);
  server.on('clientError', answerClientError);
  await once(server, 'listening');
  server.requestTimeout = config.requestTimeoutMs;
  server.headersTimeout = Math.min(config.requestTimeoutMs, 60000);
  const port = (server.address() as AddressInfo).port;
  const metricsServer = config.metricsPort === undefined ? undefined : await serveMetrics(metrics, config);
  const host = config.host.includes(':') ? `[${config.host}]` : config.host;
  // Without PUBLIC_URL on an ephemeral port, links must name the port actually bound.
  if (config.port === 0 && config.publicUrl.endsWith(':0')) config.publicUrl = `http://${host}:${port}`;
  const workers = startWorkers(config, { db, repos, clock, logger, metrics });
  return {
    url: `http://${host}:${port}`,
    port,
    server,
    db,
    repos,
    metricsUrl: metricsServer && `http://${host}:${(metricsServer.address() as AddressInfo).port}/metrics`,
    close() {
      closing ??= (async () => {
        // Still serving while the load balancer sees /readyz at 503 and stops sending new requests.
        if (config.shutdownDrainSeconds > 0) await delay(config.shutdownDrainSeconds * 1000);
        // Stopped first: a parse still running is killed and handed back to the queue for another node.
        const stopping = workers.stop();
        const closed = new Promise<void>((resolve) => server.close(() => resolve()));
        server.closeIdleConnections();
        // In-flight requests get the request timeout to finish; then the rest are cut.
        const timer = setTimeout(() => server.closeAllConnections(), config.requestTimeoutMs).unref();
        await closed;
        clearTimeout(timer);
        metricsServer?.close();
        await stopping;
        await limits.close();
        if (!options.db) await db.destroy();
      })();
      return closing;
    },
  };
}
