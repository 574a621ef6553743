import type { Knex } from 'knex';
import BetterSqlite3Dialect from 'knex/lib/dialects/better-sqlite3/index.js';
import SqliteTransactionClass from 'knex/lib/dialects/sqlite3/execution/sqlite-transaction.js';
import { BoundedMap } from '../core/bounded-map.ts';

// knex publishes no types for its dialect classes; these are the two members this file relies on.
type TransactionClass = new (
  client: unknown,
  ...rest: unknown[]
) => {
  query(conn: unknown, sql: string): Promise<unknown>;
};
type ClientClass = new (
  config: Knex.Config,
) => {
  _query(connection: unknown, obj: unknown): Promise<unknown>;
  _formatBindings(bindings: unknown[] | undefined): unknown[];
};

/** The slice of a better-sqlite3 connection and statement this file uses. */
interface Statement {
  reader: boolean;
  all(bindings: unknown[]): unknown[];
  run(bindings: unknown[]): { lastInsertRowid: number | bigint; changes: number };
}
interface Connection {
  prepare(sql: string): Statement;
}
interface QueryObject {
  sql?: string;
  bindings?: unknown[];
  options?: { safeIntegers?: boolean };
  response?: unknown;
  context?: { lastID: number | bigint; changes: number };
}

/** Statements kept per connection; a query shape used less recently than this many others is prepared again. */
const STATEMENTS_PER_CONNECTION = 500;

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

/**
 * knex's better-sqlite3 client whose transactions begin with BEGIN IMMEDIATE, and which prepares each
 * query shape once per connection (knex prepares every query again; SQLite re-prepares a kept statement
 * itself when the schema changes).
 */
export class ImmediateSqliteClient extends BetterSqlite3Client {
  transaction(...args: unknown[]) {
    return new ImmediateTransaction(this, ...args);
  }

  override async _query(connection: unknown, query: unknown): Promise<unknown> {
    const obj = query as QueryObject;
    // Queries that ask for BigInts keep knex's own path, which sets it on a fresh statement.
    if (!obj.sql || !connection || obj.options?.safeIntegers !== undefined)
      return super._query(connection, obj);
    const statement = prepared(connection as Connection, obj.sql);
    const bindings = this._formatBindings(obj.bindings);
    if (statement.reader) {
      obj.response = statement.all(bindings);
      return obj;
    }
    const response = statement.run(bindings);
    obj.response = response;
    obj.context = { lastID: response.lastInsertRowid, changes: response.changes };
    return obj;
  }
}

// Kept by connection (knex runs a transaction's queries through a copy of the client, so not on it).
const statements = new WeakMap<Connection, BoundedMap<string, Statement>>();

function prepared(connection: Connection, sql: string): Statement {
  let kept = statements.get(connection);
  if (!kept) {
    kept = new BoundedMap(STATEMENTS_PER_CONNECTION);
    statements.set(connection, kept);
  }
  let statement = kept.get(sql);
  if (!statement) {
    statement = connection.prepare(sql);
    kept.set(sql, statement);
  }
  return statement;
}
