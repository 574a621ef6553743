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
