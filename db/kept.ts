import type { Knex } from 'knex';
import { BoundedMap } from '../core/bounded-map.ts';
import { readRows, type Statement } from './prepared.ts';

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
  /** The same SQL with the driver's own placeholders ($1, $2… on PostgreSQL). */
  native: string;
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
    return readRows<T>(db, this.sqlOf(db, values));
  }

  async first<T>(db: Knex, values: P): Promise<T | undefined> {
    return (await this.rows<T>(db, values))[0];
  }

  /** The SQL and the bindings of these values, as knex would compile them. */
  sqlOf(db: Knex, values: P): Statement & { bindings: unknown[] } {
    const { sql, native, slots } = this.#compiled(db, values);
    const bindings = slots.map((slot) => {
      if ('constant' in slot) return slot.constant;
      const value = values[slot.name];
      return slot.index === undefined ? value : (value as readonly Scalar[])[slot.index];
    });
    return { sql, native, bindings };
  }

  #compiled(db: Knex, values: P): Compiled {
    const dialect = db.client.dialect;
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
  const compiled = build(db, stood as P).toSQL();
  const { sql, bindings } = compiled;
  // A stand-in written into the SQL (an identifier, a raw fragment) or changed on its way to knex would
  // make every later run wrong: refuse the query rather than keep it.
  const leaked = (text: string) =>
    text.toLowerCase().includes(MARK.toLowerCase()) || text.includes(String(NUMBER_BASE).slice(0, 8));
  if (leaked(sql) || bindings.some((b) => typeof b === 'string' && !origin.has(b) && leaked(b))) {
    throw new Error(`a kept query must pass its values to knex unchanged, as bindings: ${sql}`);
  }
  return {
    sql,
    native: compiled.toNative().sql,
    slots: bindings.map((b): Slot => origin.get(b) ?? { constant: b }),
  };
}
