import { type ChildProcess, spawn } from 'node:child_process';
import { once } from 'node:events';
import { fileURLToPath } from 'node:url';
import { cliEntry } from './build.ts';

const root = fileURLToPath(new URL('../..', import.meta.url));

export interface ChildServer {
  url: string;
  child: ChildProcess;
  /** Everything the process wrote to stderr so far (for failure messages). */
  stderr(): string;
  /** SIGKILL: no shutdown code runs, in-flight requests are cut. */
  kill(): Promise<void>;
  /** SIGTERM and wait for a clean exit. */
  stop(): Promise<void>;
}

/**
 * Starts the production server (`portfolio serve --json`, compiled with TEST_COMPILED=1) in a child process over `databaseUrl` on a free
 * port and resolves once it listens. `env` adds or overrides variables.
 */
export async function spawnServer(
  databaseUrl: string,
  env: Record<string, string> = {},
  startTimeoutMs = 30_000,
): Promise<ChildServer> {
  const child = spawn(process.execPath, [cliEntry, 'serve', '--json'], {
    cwd: root,
    env: {
      ...process.env,
      DATABASE_URL: databaseUrl,
      PORT: '0',
      HOST: '127.0.0.1',
      PUBLIC_URL: '',
      LOG_LEVEL: 'error',
      RATE_LIMIT_PER_MINUTE: '1000000',
      ...env,
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let err = '';
  let out = '';
  child.stderr!.on('data', (chunk: Buffer) => {
    err += chunk.toString();
  });
  const exited = once(child, 'exit');
  const url = await new Promise<string>((resolve, reject) => {
    const timer = setTimeout(
      () => reject(new Error(`the server did not start within ${startTimeoutMs} ms: ${err}`)),
      startTimeoutMs,
    );
    child.stdout!.on('data', (chunk: Buffer) => {
      out += chunk.toString();
      const line = out.split('\n').find((l) => l.startsWith('{'));
      if (!line) return;
      clearTimeout(timer);
      resolve((JSON.parse(line) as { url: string }).url);
    });
    child.once('exit', (code) => {
      clearTimeout(timer);
      reject(new Error(`the server exited with ${code} before listening: ${err}`));
    });
  });
  return {
    url,
    child,
    stderr: () => err,
    async kill() {
      if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
      await exited;
    },
    async stop() {
      if (child.exitCode === null && child.signalCode === null) child.kill('SIGTERM');
      await exited;
    },
  };
}
