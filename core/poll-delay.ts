/** The longest a background worker waits between polls while its polls keep failing. */
export const MAX_FAILED_POLL_DELAY_MS = 60_000;

/**
 * The pause before a background worker's next poll: none after a round that did work, the poll interval
 * after an idle one, and after `failures` failed rounds in a row the interval doubled that many times (up
 * to a minute). A worker whose database is unavailable thus stops competing with requests for it.
 */
export function nextPollDelay(pollMs: number, outcome: { worked: boolean; failures: number }): number {
  if (outcome.failures > 0)
    return Math.min(pollMs * 2 ** outcome.failures, Math.max(pollMs, MAX_FAILED_POLL_DELAY_MS));
  return outcome.worked ? 0 : pollMs;
}

/** A background worker's polling: `start` runs the first round at once, `stop` ends the loop. */
export interface PollLoop {
  start(): void;
  /** No round starts after this call; resolves once the round under way, if any, has ended. */
  stop(): Promise<void>;
}

/**
 * Runs `round` again and again, waiting between rounds as nextPollDelay says. `round` answers how many
 * items it handled; a round that throws is passed to `failed` and counted as a failure.
 */
export function pollLoop(
  pollMs: number,
  round: () => Promise<number>,
  failed: (err: unknown) => void,
): PollLoop {
  let stopping = false;
  let running: Promise<unknown> | undefined;
  let timer: NodeJS.Timeout | undefined;
  /** Failed rounds in a row: each doubles the wait, so an unavailable database is not polled every few seconds. */
  let failures = 0;
  const loop = () => {
    const current = round().catch((err: unknown) => {
      failed(err);
      return undefined;
    });
    running = current;
    void current.then((count) => {
      running = undefined;
      failures = count === undefined ? failures + 1 : 0;
      // More may be waiting after a busy round; otherwise wait for the next poll (longer after failures).
      if (!stopping) timer = setTimeout(loop, nextPollDelay(pollMs, { worked: Boolean(count), failures }));
    });
  };
  return {
    start() {
      timer ??= setTimeout(loop, 0);
    },
    async stop() {
      stopping = true;
      clearTimeout(timer);
      await running;
    },
  };
}
