import type { Knex } from 'knex';
import BetterSqlite3Dialect from 'knex/lib/dialects/better-sqlite3/index.js';
import SqliteTransactionClass from 'knex/lib/dialects/sqlite3/execution/sqlite-transaction.js';

// knex publishes no types for its dialect classes; these are the shapes this file relies on.
type TransactionClass = new (
  client: unknown,
  ...rest: unknown[]
) => {
  query(conn: unknown, sql: string): Promise<unknown>;
};
type ClientClass = new (config: Knex.Config) => object;

const BetterSqlite3Client = BetterSqlite3Dialect as ClientClass;
const SqliteTransaction = SqliteTransactionClass as TransactionClass;

/**
 * Every transaction takes SQLite's write lock when it begins. A deferred transaction that reads and then
 * writes cannot wait for a lock held by another process (SQLite answers SQLITE_BUSY at once to avoid a
 * deadlock); an immediate one queues for it, up to busy_timeout.
 */
class ImmediateTransaction extends SqliteTransaction {
  begin(conn: unknown): Promise<unknown> {
    return this.query(conn, 'BEGIN IMMEDIATE;');
  }
}

/** knex's better-sqlite3 client whose transactions begin with BEGIN IMMEDIATE. */
export class ImmediateSqliteClient extends BetterSqlite3Client {
  transaction(...args: unknown[]) {
    return new ImmediateTransaction(this, ...args);
  }
}
