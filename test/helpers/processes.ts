import { readdirSync, readFileSync } from 'node:fs';

/** The processes whose parent is `pid` and whose command line holds `match` (Linux: read from /proc). */
export function childProcesses(pid: number, match: string): number[] {
  const found: number[] = [];
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const stat = readFileSync(`/proc/${entry}/stat`, 'utf8');
      // "pid (command) state ppid …": the command may hold spaces and parentheses.
      const ppid = Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]);
      if (ppid !== pid) continue;
      if (readFileSync(`/proc/${entry}/cmdline`, 'utf8').includes(match)) found.push(Number(entry));
    } catch {
      // gone meanwhile
    }
  }
  return found;
}

/** Whether a process of this id is running (not merely a zombie). */
export function running(pid: number): boolean {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    return stat.slice(stat.lastIndexOf(')') + 2)[0] !== 'Z';
  } catch {
    return false;
  }
}

/** The resident memory of a process in MB (Linux: read from /proc), or 0 once it is gone. */
export function residentMb(pid: number): number {
  try {
    const kb = /^VmRSS:\s+(\d+) kB/m.exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
    return kb ? Number(kb[1]) / 1024 : 0;
  } catch {
    return 0;
  }
}

/** Polls `check` until it returns a value other than undefined, or fails after `ms`. */
export async function waitFor<T>(
  what: string,
  check: () => T | undefined | Promise<T | undefined>,
  ms = 30_000,
) {
  const deadline = Date.now() + ms;
  for (;;) {
    const value = await check();
    if (value !== undefined) return value;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 20));
  }
}

/**
 * Waits until the parser process `pid` is into a large PDF: its resident memory past 120 MB, more than
 * starting (about 70 MB) and reading a one-page PDF (about 105 MB) take.
 */
export async function readingLargePdf(pid: number, ms = 30_000): Promise<void> {
  await waitFor('the parser to be reading the PDF', () => (residentMb(pid) > 120 ? true : undefined), ms);
}
