import { timingSafeEqual } from 'node:crypto';
import type { Knex } from 'knex';
import { Counter, collectDefaultMetrics, Gauge, Histogram, Registry } from 'prom-client';
import type { Clock } from '../core/clock.ts';
import { onRead } from '../db/prepared.ts';
import type { Repos } from '../db/repos/index.ts';
import type { ToolOutcome } from '../tools/context.ts';

/** The Prometheus metrics of one server: a registry of its own, so several servers in a process stay apart. */
export interface Metrics {
  registry: Registry;
  request(method: string, route: string, status: number, seconds: number): void;
  toolCall(tool: string, outcome: ToolOutcome): void;
  rateLimited(): void;
  /** An attempt to deliver a webhook ended: delivered, to be retried, or failed for good. */
  webhookDelivery(outcome: string): void;
  /** Messages of the outbox sent, to be retried, failed for good, or held (no SMTP). */
  mailOutcome(outcome: string, count: number): void;
}

interface Pool {
  numUsed(): number;
  numFree(): number;
  numPendingAcquires(): number;
}

/** The gauges counted at each scrape: pool connections, sign-ins, open alerts, the webhook and mail outboxes. */
function countAtScrape(registry: Registry, db: Knex, repos: Repos, clock: Clock): void {
  new Gauge({
    name: 'db_pool_connections',
    help: 'Database pool connections by state (used, free, pending acquisitions)',
    labelNames: ['state'] as const,
    registers: [registry],
    collect() {
      const pool = (db.client as { pool?: Pool }).pool;
      this.set({ state: 'used' }, pool?.numUsed() ?? 0);
      this.set({ state: 'free' }, pool?.numFree() ?? 0);
      this.set({ state: 'pending' }, pool?.numPendingAcquires() ?? 0);
    },
  });
  new Gauge({
    name: 'active_sign_ins',
    help: 'Browser sign-in sessions that have not expired, counted in the database at scrape',
    registers: [registry],
    async collect() {
      this.set(await repos.sessions.countActive(clock.now().toISOString()));
    },
  });
  new Gauge({
    name: 'alerts_open',
    help: 'Open KPI alerts by rule, counted in the database at scrape',
    labelNames: ['rule_id'] as const,
    registers: [registry],
    async collect() {
      // Rules deleted since the last scrape must not linger.
      this.reset();
      for (const { rule_id, count } of await repos.alerts.openCounts()) this.set({ rule_id }, count);
    },
  });
  // Both read in one query pair at scrape, by whichever gauge is collected first.
  let backlog: Promise<{ lagSeconds: number; disabledEndpoints: number }> | undefined;
  const readBacklog = () => {
    backlog ??= repos.webhooks.backlog(clock.now()).finally(() => {
      setImmediate(() => {
        backlog = undefined;
      });
    });
    return backlog;
  };
  new Gauge({
    name: 'webhook_outbox_lag_seconds',
    help: 'Seconds the oldest event not yet fanned out, or the oldest due webhook delivery, has waited',
    registers: [registry],
    async collect() {
      this.set((await readBacklog()).lagSeconds);
    },
  });
  new Gauge({
    name: 'webhook_endpoints_disabled',
    help: 'Webhook endpoints disabled (after repeated failures, or by a user)',
    registers: [registry],
    async collect() {
      this.set((await readBacklog()).disabledEndpoints);
    },
  });
  new Gauge({
    name: 'mail_outbox_messages',
    help: 'Messages in the mail outbox by status (pending, held, sent, failed), counted at scrape',
    labelNames: ['status'] as const,
    registers: [registry],
    async collect() {
      for (const [status, n] of Object.entries(await repos.mail.countByStatus())) this.set({ status }, n);
    },
  });
}

/** Observes the duration of every query, knex's and the prepared hot reads'. */
function timeQueries(db: Knex, queries: Histogram): void {
  const started = new Map<string, bigint>();
  const finish = (query: { __knexQueryUid?: string }) => {
    const uid = query.__knexQueryUid;
    const t0 = uid === undefined ? undefined : started.get(uid);
    if (uid === undefined || t0 === undefined) return;
    started.delete(uid);
    queries.observe(Number(process.hrtime.bigint() - t0) / 1e9);
  };
  db.on('query', (query: { __knexQueryUid?: string }) => {
    if (query.__knexQueryUid !== undefined) started.set(query.__knexQueryUid, process.hrtime.bigint());
  });
  db.on('query-response', (_response: unknown, query: { __knexQueryUid?: string }) => finish(query));
  db.on('query-error', (_error: unknown, query: { __knexQueryUid?: string }) => finish(query));
  // The prepared hot reads (db/prepared.ts) run beside knex and report their own durations.
  onRead(db, (_statement, seconds) => queries.observe(seconds));
}

export function createMetrics(db: Knex, repos: Repos, clock: Clock): Metrics {
  const registry = new Registry();
  // Process metrics, among them nodejs_eventloop_lag_seconds.
  collectDefaultMetrics({ register: registry });
  const requests = new Counter({
    name: 'http_requests_total',
    help: 'HTTP requests by method, matched route and status',
    labelNames: ['method', 'route', 'status'] as const,
    registers: [registry],
  });
  const durations = new Histogram({
    name: 'http_request_duration_seconds',
    help: 'HTTP request durations by method, matched route and status',
    labelNames: ['method', 'route', 'status'] as const,
    buckets: [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10],
    registers: [registry],
  });
  const tools = new Counter({
    name: 'tool_calls_total',
    help: 'Tool calls from REST and MCP by tool and outcome (ok, client_error, server_error)',
    labelNames: ['tool', 'outcome'] as const,
    registers: [registry],
  });
  const limited = new Counter({
    name: 'rate_limit_rejections_total',
    help: 'Requests refused with 429 by the rate limit',
    registers: [registry],
  });
  const queries = new Histogram({
    name: 'db_query_duration_seconds',
    help: 'Database query durations',
    buckets: [0.001, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 5],
    registers: [registry],
  });

  countAtScrape(registry, db, repos, clock);
  timeQueries(db, queries);

  const webhookDeliveries = new Counter({
    name: 'webhook_deliveries_total',
    help: 'Webhook delivery attempts by outcome (delivered, retry, failed)',
    labelNames: ['outcome'] as const,
    registers: [registry],
  });

  const mailMessages = new Counter({
    name: 'mail_messages_total',
    help: 'Outbound mail by outcome of an attempt (sent, retry, failed) or held (no SMTP_URL)',
    labelNames: ['outcome'] as const,
    registers: [registry],
  });

  // Routes are patterns (or `unmatched`), so the label sets are few.
  const byLabels = new Map<string, { count: { inc(): void }; duration: { observe(v: number): void } }>();
  return {
    registry,
    request(method, route, status, seconds) {
      // The children of each label set are kept: finding them from the labels costs more than counting.
      const key = `${method} ${route} ${status}`;
      let found = byLabels.get(key);
      if (!found) {
        const labels = { method, route, status: String(status) };
        found = { count: requests.labels(labels), duration: durations.labels(labels) };
        byLabels.set(key, found);
      }
      found.count.inc();
      found.duration.observe(seconds);
    },
    toolCall: (tool, outcome) => tools.inc({ tool, outcome }),
    rateLimited: () => limited.inc(),
    webhookDelivery: (outcome) => webhookDeliveries.inc({ outcome }),
    mailOutcome: (outcome, count) => mailMessages.inc({ outcome }, count),
  };
}

/** Whether `header` is `Bearer <token>` for the configured token, compared in constant time. */
export function isMetricsBearer(header: string | undefined, token: string): boolean {
  const sent = Buffer.from(/^Bearer (.+)$/i.exec(header ?? '')?.[1] ?? '');
  const expected = Buffer.from(token);
  return sent.length === expected.length && timingSafeEqual(sent, expected);
}
