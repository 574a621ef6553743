import type { Knex } from 'knex';
import type { Clock } from '../../core/clock.ts';
import type { RunningServer, StartOptions } from '../../server/http.ts';
import { TOOLSETS } from '../../tools/toolsets.ts';
import { serverModules } from './build.ts';

export interface TestServerOptions {
  env?: Record<string, string>;
  clock?: Clock;
  /** A tool registry and route table of the test's own instead of the service's. */
  tools?: StartOptions['tools'];
  routes?: StartOptions['routes'];
}

/** MCP_TOOLSETS that lists every tool (with MCP_WRITE_TOOLS on), for suites that call write tools over MCP. */
export const EVERY_TOOLSET = TOOLSETS.join(',');

/** Starts the real HTTP server on a free port over an already migrated database. */
export async function startTestServer(db: Knex, options: TestServerOptions = {}): Promise<RunningServer> {
  const { http, config: configModule } = await serverModules();
  const config = configModule.loadConfig({
    PORT: '0',
    HOST: '127.0.0.1',
    LOG_LEVEL: 'silent',
    DATABASE_URL: 'sqlite::memory:',
    // Suites that test parsing switch it on; elsewhere it would change parse states under a test.
    DOCUMENT_PARSING: 'off',
    // Suites that test alerts switch it on and run passes themselves.
    ALERTS: 'off',
    // Likewise webhook delivery, which polls the database in the background.
    WEBHOOK_DELIVERY: 'off',
    // And the mail worker and the reminder pass, which would change the outbox under a test.
    MAIL_DELIVERY: 'off',
    REMINDERS: 'off',
    ...options.env,
  });
  return http.startServer(config, {
    db,
    clock: options.clock,
    validateOutput: true,
    tools: options.tools,
    routes: options.routes,
  });
}

/** A controllable clock for expiry tests. */
export class TestClock implements Clock {
  constructor(private current = new Date('2026-06-01T12:00:00.000Z')) {}
  now(): Date {
    return new Date(this.current);
  }
  advance(ms: number): void {
    this.current = new Date(this.current.getTime() + ms);
  }
  set(date: Date): void {
    this.current = date;
  }
}

/** fetch with a bearer token; returns status, headers and parsed body. */
export async function api(
  base: string,
  path: string,
  options: { token?: string; method?: string; body?: unknown; headers?: Record<string, string> } = {},
) {
  const headers: Record<string, string> = { ...options.headers };
  if (options.token) headers.Authorization = `Bearer ${options.token}`;
  // A FormData body goes out as multipart/form-data, with the boundary fetch chooses.
  const form = options.body instanceof FormData ? options.body : undefined;
  if (options.body !== undefined && !form) headers['Content-Type'] ??= 'application/json';
  const res = await fetch(base + path, {
    method: options.method ?? 'GET',
    headers,
    body: form ?? (options.body === undefined ? undefined : JSON.stringify(options.body)),
  });
  const text = await res.text();
  let body: unknown = text;
  try {
    body = JSON.parse(text);
  } catch {
    // not JSON: keep the text
  }
  // biome-ignore lint/suspicious/noExplicitAny: tests inspect arbitrary JSON
  return { status: res.status, headers: res.headers, body: body as any };
}
