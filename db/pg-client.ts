import { createHash } from 'node:crypto';
import type { Knex } from 'knex';
import PostgresDialect from 'knex/lib/dialects/postgres/index.js';
import { BoundedMap } from '../core/bounded-map.ts';

// knex publishes no types for its dialect classes; this is the member this file relies on.
type ClientClass = new (
  config: Knex.Config,
) => {
  _query(connection: unknown, obj: unknown): Promise<unknown>;
};

const PgClient = PostgresDialect as ClientClass;

/** The slice of a pg client this file uses: pg keeps the text of each statement it prepared by name. */
interface Connection {
  connection?: {
    parsedStatements: Record<string, string>;
    submittedNamedStatements?: Record<string, string>;
  };
  query(text: string): Promise<unknown>;
}
interface QueryObject {
  sql?: string;
  bindings?: unknown[];
  options?: Record<string, unknown>;
}

/** Statements one connection keeps prepared; beyond that, new query shapes run unnamed as knex sends them. */
const STATEMENTS_PER_CONNECTION = 1_000;
/** Only plain data statements of a bounded shape are named (a long IN list is a shape of its own). */
const NAMEABLE = /^\s*(select|insert|update|delete|with)\b/i;
const MAX_NAMED_BINDINGS = 100;

// What each connection prepared here (knex runs a transaction's queries through a copy of the client).
const named = new WeakMap<Connection, Set<string>>();

/**
 * knex's PostgreSQL client, which prepares each query shape once per connection: knex sends every query
 * unnamed, so PostgreSQL parses and plans its text each time; a named statement is parsed once and
 * then only bound and executed. A table changed under a kept statement (another node migrating)
 * makes PostgreSQL refuse it ("cached plan must not change result type"): the statement is then
 * dropped and the query runs again unnamed.
 */
export class PreparingPgClient extends PgClient {
  override async _query(connection: unknown, query: unknown): Promise<unknown> {
    const obj = query as QueryObject & { response?: unknown };
    // Rows come as arrays and become objects here (see objectRows), unless the query chose a row mode.
    if (obj.options?.rowMode !== undefined) return this.prepared(connection, obj);
    obj.options = { ...obj.options, rowMode: 'array' };
    const result = await this.prepared(connection, obj);
    for (const response of Array.isArray(obj.response) ? obj.response : [obj.response])
      objectRows(response as ArrayResult | undefined);
    return result;
  }

  // A plain method, not a private one: knex runs a transaction's queries through Object.create(client).
  async prepared(connection: unknown, obj: QueryObject): Promise<unknown> {
    const conn = connection as Connection;
    const name = statementName(conn, obj);
    if (!name) return super._query(connection, obj);
    obj.options = { ...obj.options, name };
    try {
      return await super._query(connection, obj);
    } catch (err) {
      if ((err as { code?: string }).code !== '0A000') throw err;
      named.get(conn)?.delete(name);
      if (conn.connection) {
        delete conn.connection.parsedStatements[name];
        delete conn.connection.submittedNamedStatements?.[name];
      }
      await conn.query(`deallocate "${name}"`).catch(() => {});
      const { name: _dropped, ...options } = obj.options;
      obj.options = options;
      return super._query(connection, obj);
    }
  }
}

/** A result as pg answers it in the array row mode. */
interface ArrayResult {
  rows: unknown[];
  fields?: { name: string }[];
}

type RowBuilder = (values: unknown[]) => Record<string, unknown>;

/** Row builders by their columns' names: a few dozen statements' shapes in all. */
const builders = new BoundedMap<string, RowBuilder>(STATEMENTS_PER_CONNECTION);

/**
 * The result's rows as objects, in place. pg builds each row by copying an object of the statement's
 * columns and then setting them one by one; past a few shapes of statement that copy takes V8's slow
 * path, which lays each row out anew and grows its storage as the columns come (two to three times the
 * memory of the row, and the time with it). A builder made once per list of columns writes each row
 * as one object literal of that shape instead. A later column of the same name wins, as in pg.
 */
function objectRows(result: ArrayResult | undefined): void {
  const fields = result?.fields;
  if (!result || !fields || result.rows.length === 0) return;
  const names = fields.map((f) => f.name);
  const key = names.join('\u0000');
  let build = builders.get(key);
  if (!build) {
    // The names are the statement's own column names, quoted (a name is never code); a column named
    // __proto__ is a computed key, so that it is an own property rather than the row's prototype.
    const entries = names.map(
      (n, i) => `${n === '__proto__' ? `[${JSON.stringify(n)}]` : JSON.stringify(n)}: v[${i}]`,
    );
    build = new Function('v', `return { ${entries.join(', ')} };`) as RowBuilder;
    builders.set(key, build);
  }
  const rows = result.rows;
  for (let i = 0; i < rows.length; i++) rows[i] = build(rows[i] as unknown[]);
}

/** Statement names by SQL: the same texts come back on every request (kept queries are the same strings). */
const names = new BoundedMap<string, string>(STATEMENTS_PER_CONNECTION);

function nameOf(sql: string): string {
  let name = names.get(sql);
  if (!name) {
    name = `pds_${createHash('sha1').update(sql).digest('base64url')}`;
    names.set(sql, name);
  }
  return name;
}

function statementName(conn: Connection, obj: QueryObject): string | undefined {
  if (!obj.sql || obj.options?.name !== undefined || !NAMEABLE.test(obj.sql)) return undefined;
  if ((obj.bindings?.length ?? 0) > MAX_NAMED_BINDINGS || !conn.connection?.parsedStatements)
    return undefined;
  let kept = named.get(conn);
  if (!kept) {
    kept = new Set();
    named.set(conn, kept);
  }
  const name = nameOf(obj.sql);
  if (kept.has(name)) return name;
  if (kept.size >= STATEMENTS_PER_CONNECTION) return undefined;
  kept.add(name);
  return name;
}
