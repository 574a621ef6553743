import { fork } from 'node:child_process';
import { existsSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { fileURLToPath } from 'node:url';
// Types only: the parsers themselves are loaded by the child process alone.
import type { Extraction } from './extract.ts';

/** What one parse may take: its process is killed beyond either. */
export interface RunLimits {
  /** Wall-clock time from the file being handed over. */
  timeoutMs: number;
  /** The resident-memory cap of the parse's process; its V8 heap is capped at three quarters of it. */
  memoryMb: number;
}

export const DEFAULT_RUN_LIMITS: RunLimits = { timeoutMs: 120_000, memoryMb: 512 };

export interface RunFile {
  content: Buffer;
  content_type: string;
  filename: string;
}

/**
 * How a parse ended: what the file came to (limits exceeded end it not-parseable), `crashed` when its
 * process died from a signal the runner did not send (an operator, the kernel's OOM killer), or `stopped`
 * when stop() killed it.
 */
export type RunOutcome = Extraction | { state: 'crashed'; detail: string } | { state: 'stopped' };

export interface ParseRun {
  /** Rejects with ParserUnavailable only when no parser process could be started at all. */
  outcome: Promise<RunOutcome>;
  /** Kills the parse; its outcome is then `stopped`. */
  stop(): void;
  /** The parse's process. */
  pid: number | undefined;
}

/** No parser process could be started: a fault of this node, not of the document. */
export class ParserUnavailable extends Error {}

// The child's module sits next to this one and has its extension: .ts from the sources (through tsx),
// .js in the compiled build.
const extension = import.meta.url.endsWith('.ts') ? '.ts' : '.js';
const childModule = fileURLToPath(new URL(`./parse-child${extension}`, import.meta.url));
const loaderFlags = extension === '.ts' ? [`--import=${import.meta.resolve('tsx')}`] : [];

/** A child that has not said it is ready by then never will. */
const START_TIMEOUT_MS = 30_000;
const MEMORY_POLL_MS = 50;
const STDERR_KEPT = 4096;
/** What Node writes to stderr as it dies of a full V8 heap (or of an allocation V8 refuses outright). */
const V8_OUT_OF_MEMORY = /heap out of memory|Reached heap limit|invalid size error|invalid table size/i;
/** The parser is handed no secrets: of the environment only what locates tools and formats text. */
const ENV_KEPT = ['PATH', 'TMPDIR', 'TZ', 'LANG', 'LC_ALL', 'NODE_ENV'];
const canReadRss = existsSync('/proc/self/status');

/**
 * V8 collects garbage as its heap nears its cap, not as the process nears a memory limit: a heap capped
 * below the resident cap leaves room for the rest (young generation, code, buffers, Node itself), so a
 * parse whose live data fits is not killed for garbage not yet collected.
 */
const heapMb = (memoryMb: number) => Math.floor((memoryMb * 3) / 4);
/**
 * The young generation kept small (the server runs with 6 MB): a parser allocates fast, and with V8's
 * default (16 MB semi-spaces) the garbage between scavenges took up to 30 MB of the resident cap.
 */
const SEMI_SPACE_MB = 4;

async function residentKb(pid: number): Promise<number | undefined> {
  try {
    const status = await readFile(`/proc/${pid}/status`, 'utf8');
    const kb = /^VmRSS:\s+(\d+) kB/m.exec(status);
    return kb ? Number(kb[1]) : undefined;
  } catch {
    return undefined; // gone already
  }
}

/** Parses one file in a process of its own, under the limits; the server's heap and event loop stay out of it. */
export function runParse(file: RunFile, limits: RunLimits = DEFAULT_RUN_LIMITS): ParseRun {
  const env: NodeJS.ProcessEnv = {};
  for (const name of ENV_KEPT) if (process.env[name] !== undefined) env[name] = process.env[name];
  const child = fork(childModule, [], {
    execArgv: [
      ...loaderFlags,
      `--max-old-space-size=${heapMb(limits.memoryMb)}`,
      `--max-semi-space-size=${SEMI_SPACE_MB}`,
    ],
    env,
    serialization: 'advanced',
    stdio: ['ignore', 'ignore', 'pipe', 'ipc'],
  });
  type Kill = 'timeout' | 'memory' | 'stopped' | 'done' | 'no-start';
  let killed: Kill | undefined;
  const kill = (why: Kill) => {
    killed ??= why;
    child.kill('SIGKILL');
  };
  let stderr = '';
  child.stderr!.on('data', (chunk: Buffer) => {
    stderr = (stderr + chunk.toString()).slice(-STDERR_KEPT);
  });

  const outcome = new Promise<RunOutcome>((resolve, reject) => {
    let ready = false;
    let result: Extraction | undefined;
    let deadline: NodeJS.Timeout | undefined;
    let polling = false;
    const startTimer = setTimeout(() => kill('no-start'), START_TIMEOUT_MS);
    const memoryTimer = canReadRss
      ? setInterval(() => {
          if (polling || child.pid === undefined) return;
          polling = true;
          void residentKb(child.pid).then((kb) => {
            polling = false;
            if (kb !== undefined && kb > limits.memoryMb * 1024) kill('memory');
          });
        }, MEMORY_POLL_MS)
      : undefined;

    child.on('message', (message: Extraction | { ready: true }) => {
      if (!ready) {
        ready = true;
        clearTimeout(startTimer);
        child.send({ file, timeoutMs: limits.timeoutMs });
        deadline = setTimeout(() => kill('timeout'), limits.timeoutMs);
        return;
      }
      result = message as Extraction;
      kill('done');
    });

    let settled = false;
    const settle = (code: number | null, signal: NodeJS.Signals | null, error?: Error) => {
      if (settled) return;
      settled = true;
      clearTimeout(startTimer);
      clearTimeout(deadline);
      clearInterval(memoryTimer);
      if (result) return resolve(result);
      if (killed === 'stopped') return resolve({ state: 'stopped' });
      if (killed === 'timeout')
        return resolve({ state: 'not-parseable', reason: `took longer than ${limits.timeoutMs / 1000} s` });
      if (killed === 'memory' || V8_OUT_OF_MEMORY.test(stderr))
        return resolve({ state: 'not-parseable', reason: `needed more than ${limits.memoryMb} MB` });
      if (signal && killed === undefined)
        return resolve({ state: 'crashed', detail: `the parser process died from ${signal}` });
      if (!ready || error) {
        const why =
          error?.message ?? (killed === 'no-start' ? 'it did not start in time' : `exit code ${code}`);
        return reject(new ParserUnavailable(`no parser process: ${why} ${stderr.trim()}`.trim()));
      }
      resolve({ state: 'not-parseable', reason: `the parser stopped with exit code ${code}` });
    };
    // 'close', not 'exit': stderr is read to its end first, so V8's dying words are not missed.
    child.on('close', (code, signal) => settle(code, signal));
    child.on('error', (err) => {
      // A process that never started has no exit to wait for; one that did will report it.
      if (child.pid === undefined) settle(null, null, err);
    });
  });
  return { outcome, stop: () => kill('stopped'), pid: child.pid };
}
