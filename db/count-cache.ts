import type { Knex } from 'knex';
import { BoundedMap } from '../core/bounded-map.ts';
import { readRows, type Statement, sharedRegistry } from './prepared.ts';

const STATE_SQL = 'select total_changes() as c, data_version as v from pragma_data_version';
const DATABASE_STATE: Statement = { sql: STATE_SQL, native: STATE_SQL, bindings: [] };

/** The key a number is kept under: the compiled statement and its values. */
const keyOf = (s: Statement) => `${s.sql}\u0000${JSON.stringify(s.bindings)}`;

/**
 * The totals of list queries on SQLite (and the other numbers read through numberOf, such as the
 * authentication version every request checks), kept while the database is unchanged. A count walks every
 * matching row, so it costs as much as the history it counts (a company with eight times the data
 * counts eight times as long), while the page after it does not. The database's state is the pair
 * (`total_changes()`, `data_version`) of the one connection: the first moves with every row this
 * connection writes, the second whenever another process commits. A total is used only under the state it
 * was counted at; a count that raced a write is stored under the older state, which never comes back.
 * Counts inside a transaction are never kept (its writes may yet roll back), and a new connection starts
 * from an empty cache, since its counters start again.
 */
export class CountCache {
  readonly kind = 'state';
  readonly #entries: BoundedMap<string, { state: string; n: number }>;

  constructor(maxEntries = 2_000) {
    this.#entries = new BoundedMap(maxEntries);
  }

  clear(): void {
    this.#entries.clear();
  }

  /** The number compiled SQL answers as one row `{ n }`, from the cache when the database is unchanged. */
  async number(db: Knex, statement: Statement): Promise<number> {
    const key = keyOf(statement);
    const rows = await readRows<{ c: number; v: number }>(db, DATABASE_STATE);
    const state = `${rows[0]!.c}:${rows[0]!.v}`;
    const kept = this.#entries.get(key);
    if (kept?.state === state) return kept.n;
    // The statement compiled for the key runs as is, rather than being compiled again.
    const counted = await readNumber(db, statement);
    this.#entries.set(key, { state, n: counted });
    return counted;
  }
}

/**
 * The cache of a SQLite database opened by openDb, or the totals of a PostgreSQL one (which has no such
 * cheap state of the whole database).
 */
const caches = sharedRegistry<CountCache | SnapshotTotals>('totals');

/** Gives a database opened by openDb its cache of totals. */
export function attachTotals(db: Knex, cache: CountCache | SnapshotTotals): void {
  caches.set(db, cache);
}

/**
 * The number compiled SQL answers as one row `{ n }` (a count, a version): on SQLite outside a
 * transaction through the database's cache, so read again only once the database has changed;
 * otherwise read.
 */
export async function numberOf(db: Knex, statement: Statement): Promise<number> {
  const cache = db.isTransaction ? undefined : caches.get(db);
  return cache?.kind === 'state' ? cache.number(db, statement) : readNumber(db, statement);
}

async function readNumber(db: Knex, statement: Statement): Promise<number> {
  return Number((await readRows<{ n: number | string }>(db, statement))[0]?.n ?? 0);
}

/** A transaction snapshot as PostgreSQL writes it (`xmin:xmax:xip,…`), of the statement that reads it. */
const SNAPSHOT = 'txid_current_snapshot()::text';
const SNAPSHOT_NOW: Statement = {
  sql: `select ${SNAPSHOT} as s`,
  native: `select ${SNAPSHOT} as s`,
  bindings: [],
};

/**
 * List totals on PostgreSQL kept under the snapshot they were counted in, for totals of at least
 * `worthFrom` rows. PostgreSQL has no cheap database-wide change counter, but a snapshot says which
 * transactions a statement sees: two statements whose snapshots read the same (no transaction ended in
 * between, committed or not) see the same rows. A large total costs as much as the rows it counts (a
 * company's metrics at eight times the history take eight times as long); reading the snapshot costs a
 * round trip, so it is read only before a count that was large the last time, and small totals are
 * always counted. The count and its snapshot come from one statement, so they agree.
 */
export class SnapshotTotals {
  readonly kind = 'snapshot';
  readonly #entries: BoundedMap<string, { snapshot: string; n: number }>;

  constructor(
    readonly worthFrom = 5_000,
    maxEntries = 2_000,
  ) {
    this.#entries = new BoundedMap(maxEntries);
  }

  /** The total compiled SQL answers as one row `{ n }`, kept while the snapshot reads the same. */
  async number(db: Knex, statement: Statement): Promise<number> {
    const key = keyOf(statement);
    const kept = this.#entries.get(key);
    if (kept) {
      const [now] = await readRows<{ s: string }>(db, SNAPSHOT_NOW);
      if (now?.s === kept.snapshot) return kept.n;
    }
    const wrap = (sql: string) => `select counted.n, ${SNAPSHOT} as s from (${sql}) as counted`;
    const [row] = await readRows<{ n: number | string; s: string }>(db, {
      sql: wrap(statement.sql),
      native: wrap(statement.native),
      bindings: statement.bindings,
    });
    const n = Number(row?.n ?? 0);
    if (n >= this.worthFrom && row) this.#entries.set(key, { snapshot: row.s, n });
    else this.#entries.delete(key);
    return n;
  }
}

/**
 * A list's total (compiled SQL answering one row `{ n }`): on SQLite through the database's cache, on
 * PostgreSQL kept under its snapshot when large, inside a transaction always counted.
 */
export async function totalOf(db: Knex, statement: Statement): Promise<number> {
  const cache = db.isTransaction ? undefined : caches.get(db);
  return cache ? cache.number(db, statement) : readNumber(db, statement);
}
