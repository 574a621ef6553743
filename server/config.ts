import { z } from 'zod';
import { SIGN_IN_TTL_MS } from '../auth/mcp-oauth/metadata.ts';
import type { SqliteSynchronous } from '../db/knex.ts';
import { defaultSender, isSmtpUrl, type Mailbox, parseMailbox } from '../mail/address.ts';
import { parseToolsets, type Toolset } from '../tools/toolsets.ts';

const booleanFlag = z.stringbool({ truthy: ['true', '1', 'yes', 'on'], falsy: ['false', '0', 'no', 'off'] });

/** An MCP sign-in's lifetime in seconds: the longest an access token may live, and its default. */
const SIGN_IN_SECONDS = SIGN_IN_TTL_MS / 1000;

const schema = z.object({
  PORT: z.coerce.number().int().min(0).max(65535).default(8000),
  HOST: z.string().min(1).default('127.0.0.1'),
  PUBLIC_URL: z.url().optional(),
  DATABASE_URL: z
    .string()
    .regex(/^(sqlite:|postgres(ql)?:\/\/)/, 'must start with sqlite: or postgres://')
    .default('sqlite:./data/portfolio.db'),
  REDIS_URL: z
    .string()
    .regex(/^rediss?:\/\//, 'must start with redis:// or rediss://')
    .optional(),
  LOG_LEVEL: z.enum(['debug', 'info', 'warn', 'error', 'silent']).default('info'),
  LOG_FORMAT: z.enum(['json', 'pretty']).default('json'),
  TRUST_PROXY: z.string().default('false'),
  MCP_WRITE_TOOLS: booleanFlag.default(false),
  MCP_TOOLSETS: z.string().default(''),
  // Clients that never refresh (Claude's connectors) keep working for the whole sign-in by default.
  MCP_ACCESS_TOKEN_TTL: z.coerce.number().int().min(60).max(SIGN_IN_SECONDS).default(SIGN_IN_SECONDS),
  MCP_ALLOWED_ORIGINS: z.string().default(''),
  MCP_ALLOW_LOOPBACK_CLIENT_METADATA: booleanFlag.default(false),
  RATE_LIMIT_PER_MINUTE: z.coerce.number().int().min(1).default(500),
  MCP_REGISTRATIONS_PER_MINUTE: z.coerce.number().int().min(1).default(10),
  FOUNDER_PAGE_PER_MINUTE: z.coerce.number().int().min(1).max(10000).default(30),
  OAUTH_APPLICATIONS_PER_USER: z.coerce.number().int().min(1).default(20),
  ALLOW_DEMO_CREDENTIALS: booleanFlag.default(false),
  REQUEST_TIMEOUT_MS: z.coerce.number().int().min(1000).default(30000),
  SQLITE_SYNCHRONOUS: z.enum(['FULL', 'NORMAL']).default('FULL'),
  METRICS_TOKEN: z.string().min(16, 'must be at least 16 characters').optional(),
  METRICS_PORT: z.coerce.number().int().min(0).max(65535).optional(),
  SHUTDOWN_DRAIN_SECONDS: z.coerce.number().int().min(0).max(300).default(0),
  PRUNE_INTERVAL_SECONDS: z.coerce.number().int().min(0).max(604800).default(3600),
  EVENTS_RETENTION_DAYS: z.coerce.number().int().min(1).max(3650).default(90),
  DOCUMENT_PARSING: booleanFlag.default(true),
  DOCUMENT_PARSE_INTERVAL_SECONDS: z.coerce.number().min(0.05).max(3600).default(5),
  DOCUMENT_PARSE_TIMEOUT_SECONDS: z.coerce.number().int().min(1).max(3600).default(120),
  DOCUMENT_PARSE_LEASE_SECONDS: z.coerce.number().int().min(1).max(86400).default(600),
  DOCUMENT_STORAGE_QUOTA_MB: z.coerce.number().int().min(0).default(10240),
  DOCUMENT_PARSE_MEMORY_MB: z.coerce.number().int().min(128).max(65536).default(512),
  FOUNDER_LINK_DAYS_AFTER_DUE: z.coerce.number().int().min(0).max(3650).default(30),
  ALERTS: booleanFlag.default(true),
  ALERTS_INTERVAL_SECONDS: z.coerce.number().min(0.05).max(86400).default(60),
  WEBHOOK_DELIVERY: booleanFlag.default(true),
  WEBHOOK_ALLOW_PRIVATE_URLS: booleanFlag.default(false),
  WEBHOOK_POLL_INTERVAL_SECONDS: z.coerce.number().min(0.05).max(3600).default(1),
  WEBHOOK_TIMEOUT_SECONDS: z.coerce.number().min(0.1).max(60).default(10),
  WEBHOOK_LEASE_SECONDS: z.coerce.number().min(0.5).max(3600).default(60),
  WEBHOOK_RETRY_BASE_SECONDS: z.coerce.number().min(0.001).max(3600).default(5),
  WEBHOOK_MAX_ATTEMPTS: z.coerce.number().int().min(1).max(20).default(8),
  // The message names the form, never the value: the URL holds the SMTP password.
  SMTP_URL: z
    .string()
    .refine(isSmtpUrl, 'must be smtp://user:password@host:port or smtps://user:password@host:port')
    .optional(),
  MAIL_FROM: z
    .string()
    .refine(
      (v) => parseMailbox(v) !== undefined,
      'must be one address: name@example.com or Name <name@example.com>',
    )
    .optional(),
  MAIL_DELIVERY: booleanFlag.default(true),
  MAIL_POLL_INTERVAL_SECONDS: z.coerce.number().min(0.05).max(3600).default(5),
  MAIL_TIMEOUT_SECONDS: z.coerce.number().min(0.1).max(300).default(30),
  MAIL_LEASE_SECONDS: z.coerce.number().min(0.5).max(86400).default(300),
  MAIL_RETRY_BASE_SECONDS: z.coerce.number().min(0.001).max(3600).default(30),
  MAIL_MAX_ATTEMPTS: z.coerce.number().int().min(1).max(20).default(8),
  MAIL_RETENTION_DAYS: z.coerce.number().int().min(1).max(3650).default(30),
  REMINDERS: booleanFlag.default(true),
  REMINDERS_INTERVAL_SECONDS: z.coerce.number().min(0.05).max(86400).default(300),
});

export interface Config {
  port: number;
  host: string;
  publicUrl: string;
  databaseUrl: string;
  redisUrl: string | undefined;
  logLevel: 'debug' | 'info' | 'warn' | 'error' | 'silent';
  /** JSON lines for machines, or `pretty` for a person at a terminal. */
  logFormat: 'json' | 'pretty';
  trustProxy: boolean | number | string;
  mcpWriteTools: boolean;
  /** The toolsets an MCP client sees unless it chooses with /mcp?toolsets=…; every read toolset by default. */
  mcpToolsets: Toolset[];
  mcpAccessTokenTtl: number;
  mcpAllowedOrigins: string[];
  /** Accept http://127.0.0.1 client_id metadata documents (tests and local development only). */
  mcpAllowLoopbackClientMetadata: boolean;
  rateLimitPerMinute: number;
  /** Dynamic client registrations (POST /register) one address may make per minute. */
  mcpRegistrationsPerMinute: number;
  /** Requests to the founder page per minute, per link and per address. */
  founderPagePerMinute: number;
  /** Unrevoked OAuth applications one user may hold. */
  oauthApplicationsPerUser: number;
  allowDemoCredentials: boolean;
  requestTimeoutMs: number;
  /** SQLite's synchronous pragma: FULL survives power loss, NORMAL only a process crash. */
  sqliteSynchronous: SqliteSynchronous;
  /** Bearer token that opens GET /metrics on the main port; without it /metrics is not served there. */
  metricsToken: string | undefined;
  /** A separate port that serves /metrics without a token (bind it where only Prometheus reaches). */
  metricsPort: number | undefined;
  /** Seconds a stopping server keeps serving with /readyz at 503, so a load balancer stops sending. */
  shutdownDrainSeconds: number;
  /** Seconds between deletions of expired rows; 0 switches the schedule off. */
  pruneIntervalSeconds: number;
  /** Days a change event is kept for the feed (and webhooks) before the prune deletes it. */
  eventsRetentionDays: number;
  /** Parse uploaded documents in the background on this node. */
  documentParsing: boolean;
  /** Seconds between polls of the parse queue when it was empty. */
  documentParseIntervalSeconds: number;
  /** A parse taking longer ends not-parseable. */
  documentParseTimeoutSeconds: number;
  /** How long a node's claim on a job holds; after it another node takes the job (keep it above the timeout). */
  documentParseLeaseSeconds: number;
  /** The most bytes the files of one firm's documents may take together; an upload beyond it is refused. */
  documentStorageQuotaBytes: number;
  /** Memory (V8 heap and resident) a parse's process may use; beyond it the document ends not-parseable. */
  documentParseMemoryMb: number;
  /** A founder's link to a report works until this many days after the request's due date. */
  founderLinkDaysAfterDue: number;
  /** Evaluate alert rules in the background on this node. */
  alerts: boolean;
  /** Seconds between alert passes (each reads the new events; one a day evaluates everything). */
  alertsIntervalSeconds: number;
  /** Deliver webhooks from this node (every node may; they share the queue). */
  webhookDelivery: boolean;
  /** Accept webhook URLs on loopback addresses, over http too (development and tests only). */
  webhookAllowPrivateUrls: boolean;
  /** Seconds between polls of the outbox and the delivery queue when there was nothing to send. */
  webhookPollIntervalSeconds: number;
  /** A delivery without an answer within this many seconds has failed. */
  webhookTimeoutSeconds: number;
  /** How long a node's claim on a delivery holds; after it another node sends it again (keep it above the timeout). */
  webhookLeaseSeconds: number;
  /** The wait before the first retry; later waits are 60, 360, 1440, 3600 and 7200 times it (5 s: about a day in all). */
  webhookRetryBaseSeconds: number;
  /** Attempts of a delivery before it fails and its endpoint is disabled. */
  webhookMaxAttempts: number;
  /** Where outbound mail goes (smtp:// or smtps://); without it messages are held in the outbox. */
  smtpUrl: string | undefined;
  /** The sender of outbound mail. */
  mailFrom: Mailbox;
  /** Send (or, without SMTP_URL, hold) outbound mail from this node (every node may; they share the outbox). */
  mailDelivery: boolean;
  /** Seconds between polls of the outbox when there was nothing to send. */
  mailPollIntervalSeconds: number;
  /** Connecting, the server's greeting and each exchange with it must each take less than this. */
  mailTimeoutSeconds: number;
  /** How long a node's claim on a message holds; after it another node sends it (kept above the timeouts). */
  mailLeaseSeconds: number;
  /** The wait before the first retry of a message; later waits grow fourfold, up to four hours. */
  mailRetryBaseSeconds: number;
  /** Attempts of a message before it fails. */
  mailMaxAttempts: number;
  /** Days a sent or failed message stays in the outbox before the prune deletes it (held ones stay). */
  mailRetentionDays: number;
  /** Run the reminder pass on this node (every node may; each reminder is queued once). */
  reminders: boolean;
  /** Seconds between reminder passes. */
  remindersIntervalSeconds: number;
}

export class ConfigError extends Error {}

function parseTrustProxy(value: string): boolean | number | string {
  if (value === 'true') return true;
  if (value === 'false' || value === '') return false;
  if (/^\d+$/.test(value)) return Number(value);
  return value;
}

type MailSettings = Pick<
  Config,
  | 'smtpUrl'
  | 'mailFrom'
  | 'mailDelivery'
  | 'mailPollIntervalSeconds'
  | 'mailTimeoutSeconds'
  | 'mailLeaseSeconds'
  | 'mailRetryBaseSeconds'
  | 'mailMaxAttempts'
  | 'mailRetentionDays'
  | 'reminders'
  | 'remindersIntervalSeconds'
>;

function mailSettings(c: z.infer<typeof schema>, publicUrl: string): MailSettings {
  return {
    smtpUrl: c.SMTP_URL,
    mailFrom: c.MAIL_FROM === undefined ? defaultSender(publicUrl) : parseMailbox(c.MAIL_FROM)!,
    mailDelivery: c.MAIL_DELIVERY,
    mailPollIntervalSeconds: c.MAIL_POLL_INTERVAL_SECONDS,
    mailTimeoutSeconds: c.MAIL_TIMEOUT_SECONDS,
    // A send may wait out the connection, greeting and data timeouts one after another.
    mailLeaseSeconds: Math.max(c.MAIL_LEASE_SECONDS, 4 * c.MAIL_TIMEOUT_SECONDS),
    mailRetryBaseSeconds: c.MAIL_RETRY_BASE_SECONDS,
    mailMaxAttempts: c.MAIL_MAX_ATTEMPTS,
    mailRetentionDays: c.MAIL_RETENTION_DAYS,
    reminders: c.REMINDERS,
    remindersIntervalSeconds: c.REMINDERS_INTERVAL_SECONDS,
  };
}

/** Parses the environment once; a bad variable throws a ConfigError naming it. */
export function loadConfig(env: NodeJS.ProcessEnv = process.env): Config {
  const present = Object.fromEntries(
    Object.keys(schema.shape).map((k) => [k, env[k] === '' ? undefined : env[k]]),
  );
  const parsed = schema.safeParse(present);
  if (!parsed.success) {
    const messages = parsed.error.issues.map((i) => `${i.path.join('.')}: ${i.message}`);
    throw new ConfigError(`invalid configuration: ${messages.join('; ')}`);
  }
  const c = parsed.data;
  const chosen = parseToolsets(c.MCP_TOOLSETS);
  if ('error' in chosen) throw new ConfigError(`invalid configuration: MCP_TOOLSETS: ${chosen.error}`);
  const toolsets = chosen.toolsets;
  if (toolsets.includes('writes') && !c.MCP_WRITE_TOOLS)
    throw new ConfigError('invalid configuration: MCP_TOOLSETS: writes needs MCP_WRITE_TOOLS=true');
  const publicUrl = (
    c.PUBLIC_URL ?? `http://${c.HOST.includes(':') ? `[${c.HOST}]` : c.HOST}:${c.PORT}`
  ).replace(/\/+$/, '');
  return {
    port: c.PORT,
    host: c.HOST,
    publicUrl,
    databaseUrl: c.DATABASE_URL,
    redisUrl: c.REDIS_URL,
    logLevel: c.LOG_LEVEL,
    logFormat: c.LOG_FORMAT,
    trustProxy: parseTrustProxy(c.TRUST_PROXY),
    mcpWriteTools: c.MCP_WRITE_TOOLS,
    mcpToolsets: toolsets,
    mcpAccessTokenTtl: c.MCP_ACCESS_TOKEN_TTL,
    mcpAllowedOrigins: c.MCP_ALLOWED_ORIGINS.split(',')
      .map((s) => s.trim())
      .filter(Boolean),
    mcpAllowLoopbackClientMetadata: c.MCP_ALLOW_LOOPBACK_CLIENT_METADATA,
    rateLimitPerMinute: c.RATE_LIMIT_PER_MINUTE,
    mcpRegistrationsPerMinute: c.MCP_REGISTRATIONS_PER_MINUTE,
    founderPagePerMinute: c.FOUNDER_PAGE_PER_MINUTE,
    oauthApplicationsPerUser: c.OAUTH_APPLICATIONS_PER_USER,
    allowDemoCredentials: c.ALLOW_DEMO_CREDENTIALS,
    requestTimeoutMs: c.REQUEST_TIMEOUT_MS,
    sqliteSynchronous: c.SQLITE_SYNCHRONOUS,
    shutdownDrainSeconds: c.SHUTDOWN_DRAIN_SECONDS,
    metricsToken: c.METRICS_TOKEN,
    metricsPort: c.METRICS_PORT,
    pruneIntervalSeconds: c.PRUNE_INTERVAL_SECONDS,
    eventsRetentionDays: c.EVENTS_RETENTION_DAYS,
    documentParsing: c.DOCUMENT_PARSING,
    documentParseIntervalSeconds: c.DOCUMENT_PARSE_INTERVAL_SECONDS,
    documentParseTimeoutSeconds: c.DOCUMENT_PARSE_TIMEOUT_SECONDS,
    documentParseLeaseSeconds: c.DOCUMENT_PARSE_LEASE_SECONDS,
    documentStorageQuotaBytes: c.DOCUMENT_STORAGE_QUOTA_MB * 1024 * 1024,
    documentParseMemoryMb: c.DOCUMENT_PARSE_MEMORY_MB,
    founderLinkDaysAfterDue: c.FOUNDER_LINK_DAYS_AFTER_DUE,
    alerts: c.ALERTS,
    alertsIntervalSeconds: c.ALERTS_INTERVAL_SECONDS,
    webhookDelivery: c.WEBHOOK_DELIVERY,
    webhookAllowPrivateUrls: c.WEBHOOK_ALLOW_PRIVATE_URLS,
    webhookPollIntervalSeconds: c.WEBHOOK_POLL_INTERVAL_SECONDS,
    webhookTimeoutSeconds: c.WEBHOOK_TIMEOUT_SECONDS,
    webhookLeaseSeconds: Math.max(c.WEBHOOK_LEASE_SECONDS, c.WEBHOOK_TIMEOUT_SECONDS + 1),
    webhookRetryBaseSeconds: c.WEBHOOK_RETRY_BASE_SECONDS,
    webhookMaxAttempts: c.WEBHOOK_MAX_ATTEMPTS,
    ...mailSettings(c, publicUrl),
  };
}
