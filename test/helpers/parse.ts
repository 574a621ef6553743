import type { Knex } from 'knex';
import { systemClock } from '../../core/clock.ts';
import { documentParsingRepo } from '../../db/repos/document-parsing.ts';
import { createRepos } from '../../db/repos/index.ts';
import { createParseWorker } from '../../parsing/worker.ts';
import { createLogger } from '../../server/logger.ts';
import { finishParse } from '../../services/document-parsing.ts';
import { createProposer } from '../../services/extraction/propose.ts';

/**
 * Parses every document waiting for it, as the server's parse worker does (figures proposed from
 * spreadsheets), until none is left.
 */
export async function parseWaiting(db: Knex): Promise<void> {
  const worker = createParseWorker({
    repo: documentParsingRepo(db),
    finish: (job, outcome, now) => finishParse(createRepos(db), job, outcome, now),
    clock: systemClock,
    logger: createLogger('silent'),
    pollMs: 50,
    leaseMs: 60_000,
    propose: createProposer(db),
  });
  while ((await worker.runOnce()).length > 0);
}
