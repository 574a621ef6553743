// The real server as a child process for the benchmarks that measure it over HTTP: the compiled build as
// `npm start` runs it (bench/npm-start.ts) on a database of the benchmark, its token, and its own
// event-loop delay read from /metrics.
import { type ChildProcess, spawn } from 'node:child_process';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { BENCH_TOKEN } from './generate.ts';
import { startCommand, startEnv } from './npm-start.ts';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const node = join(root, 'node_modules/.bin/node');

/** The bearer token of bench/generate.ts's user, as a request header. */
export const auth = { Authorization: `Bearer ${BENCH_TOKEN}` };
export const METRICS_TOKEN = 'bench-metrics-token-0000000000000000';

export interface Server {
  url: string;
  pid: number;
  stop(): Promise<void>;
}

let nextPort = 19100 + Math.floor(Math.random() * 500) * 2;

/** `npm start` (the compiled build) in a child process; resolves once /readyz answers. */
export async function serve(url: string, env: Record<string, string>): Promise<Server> {
  const port = nextPort++;
  const child: ChildProcess = spawn(node, startCommand, {
    cwd: root,
    env: {
      ...process.env,
      ...startEnv,
      DATABASE_URL: url,
      PORT: String(port),
      HOST: '127.0.0.1',
      LOG_LEVEL: 'warn',
      PUBLIC_URL: 'http://bench.local',
      RATE_LIMIT_PER_MINUTE: '100000000',
      SHUTDOWN_DRAIN_SECONDS: '0',
      METRICS_TOKEN,
      ...env,
    },
    stdio: ['ignore', 'ignore', 'inherit'],
  });
  const base = `http://127.0.0.1:${port}`;
  for (;;) {
    if (child.exitCode !== null) throw new Error(`the server exited with ${child.exitCode}`);
    try {
      const res = await fetch(`${base}/readyz`);
      await res.arrayBuffer();
      if (res.ok) break;
    } catch {
      // not listening yet
    }
    await new Promise((r) => setTimeout(r, 50));
  }
  return {
    url: base,
    pid: child.pid!,
    async stop() {
      const exited = new Promise((r) => child.once('exit', r));
      child.kill('SIGTERM');
      await exited;
    },
  };
}

/**
 * The server's longest event-loop delay since the last call, in ms: prom-client's monitorEventLoopDelay
 * (10 ms resolution), which each scrape of /metrics resets.
 */
export async function loopDelayMax(base: string): Promise<number> {
  const res = await fetch(`${base}/metrics`, { headers: { Authorization: `Bearer ${METRICS_TOKEN}` } });
  const text = await res.text();
  return Number(/^nodejs_eventloop_lag_max_seconds (\S+)$/m.exec(text)?.[1] ?? Number.NaN) * 1000;
}

/** A request sent again once when its kept-alive connection was closed under it (a long stall can do that). */
export async function retried<T>(request: () => Promise<T>): Promise<T> {
  try {
    return await request();
  } catch (e) {
    if (!(e instanceof TypeError)) throw e;
    return request();
  }
}

export const percentile = (xs: number[], p: number) => {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.min(s.length - 1, Math.ceil((p / 100) * s.length) - 1)] ?? 0;
};
