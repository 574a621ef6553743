import { createHash } from 'node:crypto';
import type BetterSqlite3 from 'better-sqlite3';
import type { Knex } from 'knex';
import pg from 'pg';
import { BoundedMap } from '../core/bounded-map.ts';

/**
 * Prepared statements for the hot reads (db/kept.ts, db/count-cache.ts), through the drivers' public
 * APIs. knex prepares (SQLite) or parses and plans (PostgreSQL) every query again; a kept read's text
 * comes back on every request, so it is prepared once:
 * - on SQLite with better-sqlite3's `Database#prepare()` on the one connection, which knex hands over
 *   through the pool's `afterCreate` hook. A statement runs synchronously, so it starts and ends before
 *   anything else can use the connection; while a transaction holds it (`Database#inTransaction`), a
 *   read waits for knex's pool as any other query.
 * - on PostgreSQL as a named query `{ name, text, values }` on a `pg.Pool` of the reader's own: pg
 *   parses a name once per connection, then only binds and executes it.
 * Inside a transaction, or on a database not opened by openDb, a read runs as a raw query of knex.
 */

/** A statement in both forms: `?` placeholders (for knex) and the driver's own ($1, $2… on PostgreSQL). */
export interface Statement {
  sql: string;
  native: string;
  bindings: readonly unknown[];
}

/** Told each read this module runs and its duration in seconds (the query-duration metric). */
export type ReadListener = (statement: Statement, seconds: number) => void;

interface Reader {
  readonly kind: 'sqlite' | 'postgres';
  /** The rows, or undefined when this reader cannot run it now (knex's pool then does). */
  rows<T>(statement: Statement): Promise<T[]> | T[] | undefined;
  close(): Promise<void>;
  listeners: Set<ReadListener>;
}

/**
 * A map by database shared by every copy of these modules in the process: the tests run a compiled
 * server over a database opened from the sources, each with its own copy.
 */
export function sharedRegistry<V extends object>(name: string): WeakMap<Knex, V> {
  const key = Symbol.for(`portfolio-data-service.${name}`);
  const global = globalThis as unknown as Record<symbol, WeakMap<Knex, V> | undefined>;
  let map = global[key];
  if (!map) {
    map = new WeakMap();
    global[key] = map;
  }
  return map;
}

const readers = sharedRegistry<Reader>('readers');

/** Statements one SQLite connection keeps prepared; a text used less recently is prepared again. */
const STATEMENTS_PER_CONNECTION = 500;

/** The one SQLite connection of a database opened by openDb (set from the pool's afterCreate hook). */
export class SqliteReader implements Reader {
  readonly kind = 'sqlite';
  readonly listeners = new Set<ReadListener>();
  #connection: BetterSqlite3.Database | undefined;
  #statements = new BoundedMap<string, BetterSqlite3.Statement>(STATEMENTS_PER_CONNECTION);

  /** A new connection from the pool: statements prepared on the old one go. */
  connected(connection: BetterSqlite3.Database): void {
    this.#connection = connection;
    this.#statements = new BoundedMap(STATEMENTS_PER_CONNECTION);
  }

  /** The connection when it is open; inside a transaction of knex it is the transaction's. */
  get connection(): BetterSqlite3.Database | undefined {
    return this.#connection?.open ? this.#connection : undefined;
  }

  rows<T>(statement: Statement): T[] | undefined {
    const connection = this.connection;
    if (!connection || connection.inTransaction) return undefined;
    let prepared = this.#statements.get(statement.native);
    if (!prepared) {
      prepared = connection.prepare(statement.native);
      this.#statements.set(statement.native, prepared);
    }
    if (!prepared.reader) return undefined;
    return prepared.all(sqliteBindings(statement.bindings)) as T[];
  }

  async close(): Promise<void> {
    // The connection is knex's: knex closes it.
  }
}

/** Values as knex's better-sqlite3 client binds them: booleans as 0/1, dates as milliseconds. */
function sqliteBindings(bindings: readonly unknown[]): unknown[] {
  return bindings.map((b) => (typeof b === 'boolean' ? Number(b) : b instanceof Date ? b.valueOf() : b));
}

/** Only plain reads of a bounded shape are named (a long IN list is a shape of its own). */
const NAMEABLE = /^\s*(select|with)\b/i;
const MAX_NAMED_BINDINGS = 100;
/** Names in all: beyond them, new texts run unnamed. */
const MAX_NAMES = 1_000;
/** PostgreSQL: "cached plan must not change result type" (a table changed under a named statement). */
const STALE_PLAN = '0A000';

/** Named queries on a pool of the reader's own, as large as knex's. */
export class PgReader implements Reader {
  readonly kind = 'postgres';
  readonly listeners = new Set<ReadListener>();
  readonly #pool: pg.Pool;
  readonly #names = new BoundedMap<string, string>(MAX_NAMES);
  #named = 0;

  constructor(url: string, max: number, onError: (err: Error) => void) {
    this.#pool = new pg.Pool({ connectionString: url, max, connectionTimeoutMillis: 5000 });
    // An idle connection that drops (a restart of the database) must not take the process down.
    this.#pool.on('error', onError);
    // And one that drops while a query holds it: its query fails (a 503), the client is not left to throw.
    this.#pool.on('connect', (client) => client.on('error', onError));
  }

  async rows<T>(statement: Statement): Promise<T[]> {
    const values = [...statement.bindings];
    const name = this.#nameOf(statement);
    if (!name) return (await this.#pool.query({ text: statement.native, values })).rows as T[];
    const client = await this.#pool.connect();
    try {
      const result = await client.query({ name, text: statement.native, values });
      client.release();
      return result.rows as T[];
    } catch (err) {
      const stale = (err as { code?: string }).code === STALE_PLAN;
      // A connection whose statement went stale is closed (its prepared statements with it).
      client.release(stale ? (err as Error) : undefined);
      if (!stale) throw err;
      return (await this.#pool.query({ text: statement.native, values })).rows as T[];
    }
  }

  #nameOf(statement: Statement): string | undefined {
    if (statement.bindings.length > MAX_NAMED_BINDINGS || !NAMEABLE.test(statement.native)) return undefined;
    let name = this.#names.get(statement.native);
    if (!name && this.#named < MAX_NAMES) {
      name = `pds_${createHash('sha1').update(statement.native).digest('base64url')}`;
      this.#names.set(statement.native, name);
      this.#named++;
    }
    return name;
  }

  close(): Promise<void> {
    return this.#pool.end();
  }
}

/** Gives `db` its reader; `db.destroy()` closes the reader too. */
export function attachReader(db: Knex, reader: Reader): void {
  readers.set(db, reader);
  const destroy = db.destroy.bind(db);
  // knex defines its methods as configurable properties of the instance.
  Object.defineProperty(db, 'destroy', {
    configurable: true,
    value: async (callback?: (err?: unknown) => void) => {
      await reader.close().catch(() => {});
      return destroy(callback as never);
    },
  });
}

/** The SQLite connection of a database opened by openDb (for a statement prepared in a transaction). */
export function sqliteConnectionOf(db: Knex): BetterSqlite3.Database | undefined {
  const reader = readers.get(db);
  return reader?.kind === 'sqlite' ? (reader as SqliteReader).connection : undefined;
}

/**
 * Calls `listener` with every read this module runs for `db` itself (reads it leaves to knex emit
 * knex's query events instead). Returns the function that stops it.
 */
export function onRead(db: Knex, listener: ReadListener): () => void {
  const listeners = readers.get(db)?.listeners;
  listeners?.add(listener);
  return () => listeners?.delete(listener);
}

/** The rows of a read: prepared when `db` is a database opened by openDb, else through knex. */
export async function readRows<T>(db: Knex, statement: Statement): Promise<T[]> {
  const reader = db.isTransaction ? undefined : readers.get(db);
  if (reader) {
    const started = reader.listeners.size > 0 ? performance.now() : 0;
    const rows = await reader.rows<T>(statement);
    if (rows) {
      if (started) {
        const seconds = (performance.now() - started) / 1000;
        for (const listener of reader.listeners) listener(statement, seconds);
      }
      return rows;
    }
  }
  const result = (await db.raw(statement.sql, statement.bindings as Knex.RawBinding[])) as
    | T[]
    | { rows: T[] };
  return Array.isArray(result) ? result : result.rows;
}
