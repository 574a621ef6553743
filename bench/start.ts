// Spawn to the first /healthz answer of `npm start` on an existing build and database.
// Usage: npx tsx bench/start.ts [runs] [project directory]; prints each run and the median.
// npm run bench calls `startUp` on its own databases.
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { mkdtempSync, rmSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { setTimeout as delay } from 'node:timers/promises';
import { pathToFileURL } from 'node:url';
import { median } from './stats.ts';

export async function freePort(): Promise<number> {
  const server = createServer().listen(0, '127.0.0.1');
  await once(server, 'listening');
  const { port } = server.address() as { port: number };
  server.close();
  return port;
}

/** Milliseconds from spawning `npm start` to the first 200 from /healthz; then stops it. */
async function startOnce(project: string, databaseUrl: string): Promise<number> {
  const port = await freePort();
  const started = performance.now();
  // Its own process group, so that npm, the shell and node stop together.
  const child = spawn('npm', ['start', '--silent'], {
    cwd: project,
    detached: true,
    stdio: 'ignore',
    env: {
      ...process.env,
      DATABASE_URL: databaseUrl,
      PORT: String(port),
      LOG_LEVEL: 'warn',
      DOCUMENT_PARSING: 'off',
    },
  });
  const exited = once(child, 'exit');
  try {
    for (;;) {
      if (child.exitCode !== null) throw new Error(`npm start exited with ${child.exitCode}`);
      const ok = await fetch(`http://127.0.0.1:${port}/healthz`).then(
        (r) => r.ok,
        () => false,
      );
      if (ok) return performance.now() - started;
      if (performance.now() - started > 120_000) throw new Error('no /healthz answer within 120 s');
      await delay(10);
    }
  } finally {
    if (child.exitCode === null && child.signalCode === null) {
      process.kill(-child.pid!, 'SIGTERM');
      await exited;
    }
  }
}

/**
 * `runs` timed starts of `npm start` in `project` on `databaseUrl`, after a first one that is not
 * counted (on an empty database it migrates and seeds the demo data; on any, it fills the file cache).
 */
export async function startUp(
  databaseUrl: string,
  runs: number,
  project: string,
  onRun: (ms: number, run: number) => void = () => {},
): Promise<number[]> {
  await startOnce(project, databaseUrl);
  const times: number[] = [];
  for (let i = 0; i < runs; i++) {
    times.push(await startOnce(project, databaseUrl));
    onRun(times[i]!, i + 1);
  }
  return times;
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  const runs = Number(process.argv[2] ?? 5);
  const dir = mkdtempSync(join(tmpdir(), 'pds-start-'));
  try {
    const times = await startUp(
      `sqlite:${join(dir, 'start.db')}`,
      runs,
      resolve(process.argv[3] ?? '.'),
      (ms, run) => console.log(`run ${run}: ${ms.toFixed(0)} ms`),
    );
    console.log(`median of ${runs}: ${median(times).toFixed(0)} ms`);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}
