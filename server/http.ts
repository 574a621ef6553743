import { once } from 'node:events';
import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Knex } from 'knex';
import { createLimits, type Limits } from '../auth/rate-limit.ts';
import type { Clock } from '../core/clock.ts';
import { systemClock } from '../core/clock.ts';
import type { Logger } from '../core/logger.ts';
import { migrateLatest, openDb } from '../db/knex.ts';
import { createRepos, type Repos } from '../db/repos/index.ts';
import { type AppDeps, createApp } from './app.ts';
import { answerClientError } from './client-error.ts';
import type { Config } from './config.ts';
import { createLogger } from './logger.ts';

export interface RunningServer {
  url: string;
  port: number;
  server: Server;
  db: Knex;
  repos: Repos;
  /** Stops accepting connections, lets in-flight requests finish, then closes the database. */
  close(): Promise<void>;
}

export interface StartOptions {
  clock?: Clock;
  logger?: Logger;
  validateOutput?: boolean;
  /** An open database to serve instead of opening config.databaseUrl. */
  db?: Knex;
  limits?: Limits;
  tools?: AppDeps['tools'];
  routes?: AppDeps['routes'];
}

export async function startServer(config: Config, options: StartOptions = {}): Promise<RunningServer> {
  const logger = options.logger ?? createLogger(config.logLevel);
  const db = options.db ?? openDb(config.databaseUrl);
  await migrateLatest(db);
  const repos = createRepos(db);
  const limits: Limits =
    options.limits ??
    createLimits({ perMinute: config.rateLimitPerMinute, redisUrl: config.redisUrl }, logger);
  const app = createApp({
    limits,
    config,
    repos,
    clock: options.clock ?? systemClock,
    logger,
    validateOutput: options.validateOutput,
    tools: options.tools,
    routes: options.routes,
  });
  const server = app.listen(config.port, config.host);
  server.on('clientError', answerClientError);
  await once(server, 'listening');
  server.requestTimeout = config.requestTimeoutMs;
  server.headersTimeout = Math.min(config.requestTimeoutMs, 60000);
  const port = (server.address() as AddressInfo).port;
  const host = config.host.includes(':') ? `[${config.host}]` : config.host;
  // Without PUBLIC_URL on an ephemeral port, links must name the port actually bound.
  if (config.port === 0 && config.publicUrl.endsWith(':0')) config.publicUrl = `http://${host}:${port}`;
  let closing: Promise<void> | undefined;
  return {
    url: `http://${host}:${port}`,
    port,
    server,
    db,
    repos,
    close() {
      closing ??= (async () => {
        const closed = new Promise<void>((resolve) => server.close(() => resolve()));
        server.closeIdleConnections();
        // In-flight requests get the request timeout to finish; then the rest are cut.
        const timer = setTimeout(() => server.closeAllConnections(), config.requestTimeoutMs).unref();
        await closed;
        clearTimeout(timer);
        await limits.close();
        if (!options.db) await db.destroy();
      })();
      return closing;
    },
  };
}
