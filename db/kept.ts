import type { Knex } from 'knex';
import { BoundedMap } from '../core/bounded-map.ts';

/**
 * Queries built by knex once and kept as SQL. knex builds and compiles a query on every call, which on
 * the hot reads of every request (the authentication counter, a company, a page and its total) costs
 * more than running the statement. A kept query is built once per shape with stand-in values, compiled,
 * and from then on run with each call's values put where the stand-ins were.
 *
 * The builder is given the values' stand-ins, not the values, so it must not branch on a value, only on
 * what the shape records: whether a value is given, its kind, a list's length, a boolean, a `Literal`;
 * and it must pass each stand-in to knex as it is (not lower-cased or joined into text).
 */

/** A value written into the SQL itself, for constants of the code (never input): part of the shape. */
export class Literal {
  constructor(readonly value: string) {}
}

type Scalar = string | number;
type Value = Scalar | boolean | null | undefined | Literal | readonly Scalar[];
export type Params = Record<string, Value>;

/** Where a binding's value comes from: a parameter, an item of a list parameter, or the query itself. */
type Slot = { name: string; index?: number } | { constant: unknown };

interface Compiled {
  sql: string;
  slots: Slot[];
}

/** Shapes kept per query; a list parameter makes one shape per length, so they are bounded. */
const SHAPES_PER_QUERY = 200;
/** Stand-in numbers: far above any page size or offset a caller can ask for. */
const NUMBER_BASE = 9_000_000_000_000;
/** How a stand-in string begins (upper case, so that a lower-cased stand-in no longer matches one). */
const MARK = '\u0000KEPT:';

export class KeptQuery<P extends Params> {
  readonly #build: (db: Knex, p: P) => Knex.QueryBuilder;
  readonly #byDialect = new Map<string, BoundedMap<string, Compiled>>();

  constructor(build: (db: Knex, p: P) => Knex.QueryBuilder) {
    this.#build = build;
  }

  /** The rows of the query for these values, through `db` (a transaction runs it inside itself). */
  async rows<T>(db: Knex, values: P): Promise<T[]> {
    const { sql, bindings } = this.sqlOf(db, values);
    return runSql<T>(db.client, sql, bindings);
  }

  async first<T>(db: Knex, values: P): Promise<T | undefined> {
    return (await this.rows<T>(db, values))[0];
  }

  /** The SQL and the bindings of these values, as knex would compile them. */
  sqlOf(db: Knex, values: P): { sql: string; bindings: unknown[] } {
    const { sql, slots } = this.#compiled(db, values);
    const bindings = slots.map((slot) => {
      if ('constant' in slot) return slot.constant;
      const value = values[slot.name];
      return slot.index === undefined ? value : (value as readonly Scalar[])[slot.index];
    });
    return { sql, bindings };
  }

  #compiled(db: Knex, values: P): Compiled {
    const dialect = String((db.client as { dialect?: string }).dialect);
    let shapes = this.#byDialect.get(dialect);
    if (!shapes) {
      shapes = new BoundedMap(SHAPES_PER_QUERY);
      this.#byDialect.set(dialect, shapes);
    }
    const key = shapeOf(values);
    let compiled = shapes.get(key);
    if (!compiled) {
      compiled = compile(db, values, this.#build);
      shapes.set(key, compiled);
    }
    return compiled;
  }
}

/** Keeps the query `build` makes; see KeptQuery. */
export function kept<P extends Params>(build: (db: Knex, p: P) => Knex.QueryBuilder): KeptQuery<P> {
  return new KeptQuery(build);
}

function shapeOf(values: Params): string {
  let key = '';
  for (const name in values) {
    const v = values[name];
    key += `${name}:`;
    if (v === undefined || v === null) key += 'none';
    else if (typeof v === 'string') key += 's';
    else if (typeof v === 'number') key += 'n';
    else if (typeof v === 'boolean') key += String(v);
    else if (v instanceof Literal) key += `=${v.value}`;
    else key += `[${v.length}]`;
    key += ';';
  }
  return key;
}

function compile<P extends Params>(db: Knex, values: P, build: (db: Knex, p: P) => Knex.QueryBuilder) {
  const origin = new Map<unknown, { name: string; index?: number }>();
  let n = 0;
  const standIn = (name: string, kind: 'string' | 'number', index?: number): Scalar => {
    const value = kind === 'number' ? NUMBER_BASE + ++n : `${MARK}${name}:${index ?? ''}\u0000`;
    origin.set(value, { name, index });
    return value;
  };
  const stood: Params = {};
  for (const name in values) {
    const v = values[name];
    if (typeof v === 'string' || typeof v === 'number') stood[name] = standIn(name, typeof v as 'string');
    else if (Array.isArray(v))
      stood[name] = v.map((item, i) => standIn(name, typeof item === 'number' ? 'number' : 'string', i));
    else stood[name] = v;
  }
  const { sql, bindings } = build(db, stood as P).toSQL();
  // A stand-in written into the SQL (an identifier, a raw fragment) or changed on its way to knex would
  // make every later run wrong: refuse the query rather than keep it.
  const leaked = (text: string) =>
    text.toLowerCase().includes(MARK.toLowerCase()) || text.includes(String(NUMBER_BASE).slice(0, 8));
  if (leaked(sql) || bindings.some((b) => typeof b === 'string' && !origin.has(b) && leaked(b))) {
    throw new Error(`a kept query must pass its values to knex unchanged, as bindings: ${sql}`);
  }
  return { sql, slots: bindings.map((b): Slot => origin.get(b) ?? { constant: b }) };
}

let runs = 0;

/**
 * SQL with its placeholders numbered as the client's driver wants them ($1, $2… on PostgreSQL), per
 * dialect: the same kept texts come back on every request, and numbering walks the whole text.
 */
const positioned = new Map<string, BoundedMap<string, string>>();
const POSITIONED_TEXTS = 2_000;

function positionedSql(client: RunningClient, sql: string): string {
  const dialect = String((client as { dialect?: string }).dialect);
  let texts = positioned.get(dialect);
  if (!texts) {
    texts = new BoundedMap(POSITIONED_TEXTS);
    positioned.set(dialect, texts);
  }
  const known = texts.get(sql);
  if (known !== undefined) return known;
  const text = client.positionBindings(sql);
  texts.set(sql, text);
  return text;
}

/** The knex client members runSql uses beyond the typed ones. */
type RunningClient = Knex.Client & {
  transacting?: boolean;
  pool?: { numUsed(): number; numFree(): number; numPendingAcquires(): number };
  positionBindings(sql: string): string;
  _query(connection: unknown, obj: object): Promise<unknown>;
  acquireConnection(): Promise<unknown>;
  releaseConnection(connection: unknown): Promise<unknown>;
};

/** Where openDb keeps its one SQLite connection (db/knex.ts sets it as the pool creates it). */
export interface SqliteConnectionHolder {
  current?: unknown;
}

/**
 * The one SQLite connection, when nothing holds it or waits for it. A statement of better-sqlite3 runs
 * synchronously, so one run on the free connection starts and ends before anything else can take it:
 * it needs no turn from the pool. A transaction holds the connection for its whole length, so a read
 * then waits for the pool as any other.
 */
function idleSqliteConnection(client: RunningClient): unknown {
  const holder = (client.config as { sqliteConnection?: SqliteConnectionHolder }).sqliteConnection;
  const pool = client.pool;
  if (!holder?.current || !pool) return undefined;
  return pool.numUsed() === 0 && pool.numFree() === 1 && pool.numPendingAcquires() === 0
    ? holder.current
    : undefined;
}

/**
 * Runs compiled SQL (with `?` placeholders) through a knex client and returns its rows, without knex's
 * builder and runner: on the idle SQLite connection, or on one taken from the pool. It emits knex's
 * query events as knex does (the query-duration metric listens to them). A transaction's client runs it
 * as a raw query of the transaction.
 */
export async function runSql<T>(
  knexClient: Knex.Client,
  sql: string,
  bindings: readonly unknown[],
): Promise<T[]> {
  const client = knexClient as RunningClient;
  if (client.transacting) {
    const result = (await client.raw(sql, bindings as Knex.RawBinding[])) as T[] | { rows: T[] };
    return Array.isArray(result) ? result : result.rows;
  }
  const obj = {
    sql: positionedSql(client, sql),
    bindings: [...bindings],
    method: 'select',
    options: {},
    __knexQueryUid: `k${++runs}`,
  };
  const idle = idleSqliteConnection(client);
  if (idle) return runOn<T>(client, idle, obj);
  const connection = await client.acquireConnection();
  try {
    return await runOn<T>(client, connection, obj);
  } finally {
    await client.releaseConnection(connection);
  }
}

async function runOn<T>(
  client: RunningClient,
  connection: unknown,
  obj: { sql: string; __knexQueryUid: string; response?: unknown },
): Promise<T[]> {
  const { __knexUid, __knexTxId } = connection as { __knexUid?: string; __knexTxId?: string };
  client.emit('query', { __knexUid, __knexTxId, ...obj });
  try {
    await client._query(connection, obj);
  } catch (err) {
    // As knex reports a failed query: the statement, then the database's message.
    if (err instanceof Error) err.message = `${obj.sql} - ${err.message}`;
    client.emit('query-error', err, obj);
    throw err;
  }
  const response = obj.response as T[] | { rows: T[] };
  const rows = Array.isArray(response) ? response : response.rows;
  client.emit('query-response', rows, obj);
  return rows;
}
