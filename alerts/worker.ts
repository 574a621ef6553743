import { databaseErrorSummary } from '../core/db-errors.ts';
import { type EvaluatorDeps, evaluateFirm } from './evaluate.ts';

export interface AlertWorker {
  start(): void;
  /** Stops the schedule and waits for a pass in progress. */
  stop(): Promise<void>;
  /** One pass over every firm with rules (what the schedule runs). */
  tick(): Promise<void>;
}

/** Evaluates every firm's rules every `intervalMs`: its new events each time, everything once a day. */
export function createAlertWorker(deps: EvaluatorDeps & { intervalMs: number }): AlertWorker {
  let timer: NodeJS.Timeout | undefined;
  let running: Promise<void> | undefined;
  const tick = async () => {
    for (const firmId of await deps.repos.alerts.firmsWithRules()) {
      try {
        const result = await evaluateFirm(deps, firmId, 'auto');
        if (result.triggered || result.cleared)
          deps.logger.info('alerts evaluated', { firm_id: firmId, ...result });
      } catch (err) {
        deps.logger.warn('alert evaluation failed', { firm_id: firmId, ...databaseErrorSummary(err) });
      }
    }
  };
  const run = () => {
    running ??= tick()
      .catch((err: unknown) => deps.logger.warn('alert evaluation failed', databaseErrorSummary(err)))
      .finally(() => {
        running = undefined;
      });
  };
  return {
    start() {
      timer ??= setInterval(run, deps.intervalMs).unref();
      run();
    },
    async stop() {
      clearInterval(timer);
      timer = undefined;
      await running;
    },
    tick,
  };
}
