import { expect } from 'chai';
import { systemClock } from '../core/clock.ts';
import type { Logger } from '../core/logger.ts';
import { nextPollDelay } from '../core/poll-delay.ts';
import { openDb } from '../db/knex.ts';
import { documentParsingRepo } from '../db/repos/document-parsing.ts';
import { webhooksRepo } from '../db/repos/webhooks.ts';
import { createParseWorker } from '../parsing/worker.ts';
import { createLogger } from '../server/logger.ts';
import { createDispatcher } from '../webhooks/dispatcher.ts';

/** A logger that keeps its warnings. */
function recording(): Logger & { warnings: { msg: string; fields: Record<string, unknown> }[] } {
  const warnings: { msg: string; fields: Record<string, unknown> }[] = [];
  const logger = {
    warnings,
    debug() {},
    info() {},
    warn(msg: string, fields: Record<string, unknown> = {}) {
      warnings.push({ msg, fields });
    },
    error(msg: string, fields: Record<string, unknown> = {}) {
      warnings.push({ msg, fields });
    },
    child() {
      return logger;
    },
  };
  return logger;
}

describe('background workers while the database is unavailable', function () {
  this.timeout(20_000);
  // Nothing listens on port 1: every connection is refused at once, like a database server that is down.
  const down = () => openDb('postgres://postgres@127.0.0.1:1/down', { logger: createLogger('silent') });
  const POLL_MS = 20;
  const RUN_MS = 1200;

  it('the wait between polls doubles after each failed one, up to a minute, and is back to the interval after a success', () => {
    expect(nextPollDelay(1000, { worked: false, failures: 0 })).to.equal(1000);
    expect(nextPollDelay(1000, { worked: true, failures: 0 })).to.equal(0);
    expect(nextPollDelay(1000, { worked: false, failures: 1 })).to.equal(2000);
    expect(nextPollDelay(1000, { worked: false, failures: 3 })).to.equal(8000);
    expect(nextPollDelay(1000, { worked: false, failures: 20 })).to.equal(60_000);
    // An interval longer than a minute is never shortened by failures.
    expect(nextPollDelay(120_000, { worked: false, failures: 2 })).to.equal(120_000);
  });

  const workers = [
    {
      name: 'the webhook dispatcher',
      start: (db: ReturnType<typeof down>, logger: Logger) =>
        createDispatcher({
          repo: webhooksRepo(db),
          clock: systemClock,
          logger,
          pollMs: POLL_MS,
          leaseMs: 60_000,
          retryBaseSeconds: 5,
          maxAttempts: 3,
          post: { allowPrivate: false, timeoutMs: 1000, maxResponseBytes: 1024 },
        }),
    },
    {
      name: 'the document parse worker',
      start: (db: ReturnType<typeof down>, logger: Logger) =>
        createParseWorker({
          repo: documentParsingRepo(db),
          finish: async () => false,
          clock: systemClock,
          logger,
          pollMs: POLL_MS,
          leaseMs: 60_000,
        }),
    },
  ];

  for (const w of workers) {
    it(`${w.name} backs off instead of polling every interval, and its warnings carry no SQL`, async () => {
      const db = down();
      const logger = recording();
      const worker = w.start(db, logger);
      worker.start();
      await new Promise((resolve) => setTimeout(resolve, RUN_MS));
      await worker.stop();
      await db.destroy();
      // At a steady 20 ms, 1.2 s holds about 60 polls; doubling waits 40, 80, 160, 320, 640 ms: 5 or 6.
      expect(logger.warnings.length, JSON.stringify(logger.warnings[0])).to.be.within(2, 10);
      for (const warning of logger.warnings) {
        const text = JSON.stringify(warning.fields).toLowerCase();
        expect(text).to.match(/econnrefused|connect/);
        for (const sql of ['select ', 'update ', 'insert ', 'delete ', 'begin'])
          expect(text).to.not.include(sql);
      }
    });
  }
});
