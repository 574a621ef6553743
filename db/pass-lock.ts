import type { Knex } from 'knex';
import { isPostgres } from './knex.ts';

/**
 * Takes the lock named `key` for the rest of the transaction `trx`, or answers false at once when
 * another transaction holds it: how one node, of several running the same scheduled pass, takes a
 * firm's turn while the others skip it. SQLite has one writer, whose transaction holds everything.
 */
export async function tryPassLock(trx: Knex, key: string): Promise<boolean> {
  if (!isPostgres(trx)) return true;
  const result = await trx.raw('select pg_try_advisory_xact_lock(hashtextextended(?, 0)) as locked', [key]);
  return Boolean((result.rows as { locked: boolean }[])[0]?.locked);
}
