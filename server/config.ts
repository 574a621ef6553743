import { z } from 'zod';

const booleanFlag = z.stringbool({ truthy: ['true', '1', 'yes', 'on'], falsy: ['false', '0', 'no', 'off'] });

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
  TRUST_PROXY: z.string().default('false'),
  MCP_WRITE_TOOLS: booleanFlag.default(false),
  MCP_ACCESS_TOKEN_TTL: z.coerce.number().int().min(60).max(86400).default(3600),
  MCP_ALLOWED_ORIGINS: z.string().default(''),
  MCP_ALLOW_LOOPBACK_CLIENT_METADATA: booleanFlag.default(false),
  RATE_LIMIT_PER_MINUTE: z.coerce.number().int().min(1).default(500),
  ALLOW_DEMO_CREDENTIALS: booleanFlag.default(false),
  REQUEST_TIMEOUT_MS: z.coerce.number().int().min(1000).default(30000),
});

export interface Config {
  port: number;
  host: string;
  publicUrl: string;
  databaseUrl: string;
  redisUrl: string | undefined;
  logLevel: 'debug' | 'info' | 'warn' | 'error' | 'silent';
  trustProxy: boolean | number | string;
  mcpWriteTools: boolean;
  mcpAccessTokenTtl: number;
  mcpAllowedOrigins: string[];
  /** Accept http://127.0.0.1 client_id metadata documents (tests and local development only). */
  mcpAllowLoopbackClientMetadata: boolean;
  rateLimitPerMinute: number;
  allowDemoCredentials: boolean;
  requestTimeoutMs: number;
}

export class ConfigError extends Error {}

function parseTrustProxy(value: string): boolean | number | string {
  if (value === 'true') return true;
  if (value === 'false' || value === '') return false;
  if (/^\d+$/.test(value)) return Number(value);
  return value;
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
    trustProxy: parseTrustProxy(c.TRUST_PROXY),
    mcpWriteTools: c.MCP_WRITE_TOOLS,
    mcpAccessTokenTtl: c.MCP_ACCESS_TOKEN_TTL,
    mcpAllowedOrigins: c.MCP_ALLOWED_ORIGINS.split(',')
      .map((s) => s.trim())
      .filter(Boolean),
    mcpAllowLoopbackClientMetadata: c.MCP_ALLOW_LOOPBACK_CLIENT_METADATA,
    rateLimitPerMinute: c.RATE_LIMIT_PER_MINUTE,
    allowDemoCredentials: c.ALLOW_DEMO_CREDENTIALS,
    requestTimeoutMs: c.REQUEST_TIMEOUT_MS,
  };
}
