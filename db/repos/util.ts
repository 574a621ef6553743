import type { Knex } from 'knex';
import type { Scope } from '../../core/principal.ts';
import { totalOf } from '../count-cache.ts';
import type { KeptQuery, Params } from '../kept.ts';
import { isPostgres } from '../knex.ts';
import type { Counted, Page } from '../types.ts';

export type QB = Knex.QueryBuilder;

/** SQLite answers booleans as 0/1; PostgreSQL as true/false. */
export function bool(v: unknown): boolean {
  return v === true || v === 1 || v === '1';
}

/** A LIKE pattern for a case-insensitive substring, with the wildcards of the input escaped. */
export function containsPattern(text: string): string {
  return `%${text.toLowerCase().replace(/[\\%_]/g, (c) => `\\${c}`)}%`;
}

/**
 * `column` in a list of strings given as one bound JSON array: one statement (and one prepared plan) for
 * any length, where an IN list binds every item and makes a statement of each length.
 */
export function whereInJson(db: Knex, qb: QB, column: string, json: string): QB {
  return isPostgres(db)
    ? qb.whereRaw('?? in (select json_array_elements_text(?::json))', [column, json])
    : qb.whereRaw('?? in (select value from json_each(?))', [column, json]);
}

/** Names case-insensitively in code-point order on both databases (a PostgreSQL locale would reorder them). */
export function byName(db: Knex, column: string): string {
  return isPostgres(db)
    ? `lower(${column}) collate "C", ${column} collate "C"`
    : `lower(${column}), ${column}`;
}

export function whereContains(qb: QB, column: string, text: string): QB {
  return whereLike(qb, column, containsPattern(text));
}

/** A case-insensitive match of a `containsPattern` (made by the caller, so that a kept query binds it). */
export function whereLike(qb: QB, column: string, pattern: string): QB {
  return qb.whereRaw(`lower(${column}) like ? escape '\\'`, [pattern]);
}

/** Restricts a query to the caller's firm and, where access is limited, to its companies. */
export function scoped(qb: QB, scope: Scope, table: string, companyColumn = 'company_id'): QB {
  qb.where(`${table}.firm_id`, scope.firmId);
  if (scope.companyIds) qb.whereIn(`${table}.${companyColumn}`, scope.companyIds as string[]);
  return qb;
}

/** The count, then the page unless it lies past the end. */
async function countThenPage<T>(
  count: Promise<number>,
  page: () => Promise<T[]>,
  at: Page,
): Promise<Counted<T>> {
  const n = await count;
  return { count: n, rows: n === 0 || at.offset >= n ? [] : await page() };
}

/** Runs the count and the page of one filtered query. */
export function countAndPage<T>(
  db: Knex,
  base: QB,
  page: Page,
  order: (qb: QB) => QB,
  select: (qb: QB) => QB = (qb) => qb.select('*'),
): Promise<Counted<T>> {
  const compiled = base.clone().clearSelect().clearOrder().count({ n: '*' }).toSQL();
  const { sql, bindings } = compiled;
  return countThenPage(
    totalOf(db, { sql, native: compiled.toNative().sql, bindings }),
    async () => (await order(select(base.clone())).limit(page.limit).offset(page.offset)) as T[],
    page,
  );
}

/**
 * countAndPage over kept queries (db/kept.ts): `count` answers one row `{ n }` for the values, `page`
 * the rows of one page for the same values with `limit` and `offset`.
 */
export function countAndPageKept<T, P extends Params>(
  db: Knex,
  count: KeptQuery<P>,
  page: KeptQuery<P & { limit: number; offset: number }>,
  values: P,
  at: Page,
): Promise<Counted<T>> {
  return countThenPage(
    totalOf(db, count.sqlOf(db, values)),
    () => page.rows<T>(db, { ...values, limit: at.limit, offset: at.offset }),
    at,
  );
}

export function chunk<T>(items: readonly T[], size: number): T[][] {
  const out: T[][] = [];
  for (let i = 0; i < items.length; i += size) out.push(items.slice(i, i + size));
  return out;
}

/** Bound parameters per statement, under SQLite's limit (32766) and PostgreSQL's (65535). */
const MAX_BOUND_PARAMETERS = 30000;
/** Rows per insert: SQLite compiles a multi-row insert into a compound select of at most 500 terms. */
const MAX_ROWS_PER_INSERT = 500;

/** Inserts rows (all with the same columns) in as few statements as both databases accept. */
export async function insertBatched(
  db: Knex | Knex.Transaction,
  table: string,
  rows: readonly Record<string, unknown>[],
): Promise<void> {
  if (rows.length === 0) return;
  const columns = Object.keys(rows[0]!).length;
  const size = Math.max(1, Math.min(MAX_ROWS_PER_INSERT, Math.floor(MAX_BOUND_PARAMETERS / columns)));
  for (const batch of chunk(rows, size)) await db(table).insert(batch);
}

/** Whether a database error is a unique-constraint violation (PostgreSQL or SQLite). */
export function isUniqueViolation(err: unknown): boolean {
  const code = (err as { code?: unknown } | null)?.code;
  return code === '23505' || code === 'SQLITE_CONSTRAINT_UNIQUE' || code === 'SQLITE_CONSTRAINT_PRIMARYKEY';
}
