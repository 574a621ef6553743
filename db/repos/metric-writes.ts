import type { Knex } from 'knex';
import { parseChoices } from '../../core/categories.ts';
import type { Scope } from '../../core/principal.ts';
import { newId } from '../ids.ts';
import { isPostgres } from '../knex.ts';
import { sqliteConnectionOf } from '../prepared.ts';
import { bool, chunk, insertBatched, scoped } from './util.ts';

/** What an update needs to know about a datum before it changes it. */
export interface DatumTarget {
  id: string;
  company_id: string;
  date: string;
  cadence: string;
  budget_id: string | null;
  value: string;
  currency: string | null;
  archived: boolean;
  category_name: string;
  category_type: string;
  is_standard: boolean;
  /** Choices of a select custom metric, in order; empty for every other kind. */
  choices: string[];
}

export interface MetricChange {
  value?: string;
  currency?: string;
  /** Contents of the comments to append, in order. */
  comments?: string[];
}

export interface ChangeAuthor {
  userId: string;
  /** Stamped on each new comment as `updated_by`. */
  name: string;
}

export interface UpdatedComment {
  content: string;
  updated_by: string;
  updated_at: string;
}

export interface UpdatedDatum {
  id: string;
  value: string;
  currency: string | null;
  /** Every comment of the datum, oldest first. */
  comments: UpdatedComment[];
}

/** A datum for a bulk insert; the caller chooses its id. */
export interface NewDatum {
  id: string;
  company_id: string;
  category_id: string;
  cadence: string;
  date: string;
  value: string;
  currency: string | null;
  budget_id: string | null;
  /** Where the value came from, such as `import`. */
  detailed_source: string;
}

/** What a bulk write matches a live datum on: company, category, date, cadence and budget. */
export interface DatumKey {
  company_id: string;
  category_id: string;
  date: string;
  cadence: string;
  budget_id: string | null;
}

export interface LiveDatum extends DatumKey {
  id: string;
  value: string;
  currency: string | null;
}

/** A new value for a live datum, with the value it replaces (both kept in metric_history). */
export interface ValueChange {
  id: string;
  /** Null when the datum is new. */
  old_value: string | null;
  old_currency: string | null;
  value: string;
  currency: string | null;
}

/** The text form of a datum key, for maps. */
export function datumKey(d: DatumKey): string {
  return [d.company_id, d.category_id, d.date, d.cadence, d.budget_id ?? ''].join('|');
}

/** The metric_history row of one change of a datum: created (old value null) or deleted (new value null). */
function historyRow(
  change: Omit<ValueChange, 'value'> & { value: string | null },
  commentsAdded: number,
  changedBy: string,
  at: string,
) {
  return {
    id: newId(),
    datum_id: change.id,
    old_value: change.old_value,
    new_value: change.value,
    old_currency: change.old_currency,
    new_currency: change.currency,
    comments_added: commentsAdded,
    changed_by: changedBy,
    changed_at: at,
  };
}

/** Companies (and categories) per lookup of live data: keeps each query's bound parameters small. */
const LOOKUP_BATCH = 200;

/** One point to write: the company and budget are those of the whole request. */
export interface PointToWrite {
  category_id: string;
  cadence: string;
  date: string;
  value: string;
  currency: string | null;
  /** Where this point came from, when it differs from the request's detailedSource (a cell of a document). */
  detailed_source?: string;
}

/** What happens to a point that meets a live datum of the same category, cadence, date and budget. */
export type ConflictMode = 'overwrite' | 'skip' | 'error';

export type PointOutcome = 'created' | 'overwritten' | 'unchanged' | 'skipped';

export interface WrittenPoint {
  /** The new datum, or the existing one it met (the first by creation when several exist). */
  id: string;
  outcome: PointOutcome;
  /** What the datum holds afterwards. */
  value: string;
  currency: string | null;
}

export interface BulkWrite {
  companyId: string;
  budgetId: string | null;
  points: readonly PointToWrite[];
  mode: ConflictMode;
  /** The user recorded in metric_history as having made each change. */
  userId: string;
  at: string;
  /** Where the values came from (default `api`), set on new data and on data they overwrite. */
  detailedSource?: string;
}

/** Either every point written, or (mode `error`) the positions of the points that met live data. */
export type BulkResult = { written: WrittenPoint[]; conflicts: [] } | { written: []; conflicts: number[] };

interface LiveRow {
  id: string;
  category_id: string;
  cadence: string;
  date: string;
  value: string;
  currency: string | null;
}

const pointKey = (p: { category_id: string; cadence: string; date: string }) =>
  `${p.category_id}|${p.cadence}|${p.date}`;

// 14 columns a row: 500 rows stay far below SQLite's 32,766 bound parameters (and PostgreSQL's 65,535).
const INSERT_BATCH = 500;

/** The live data a bulk write meets, by point key, each key's oldest first. */
async function liveRowsOf(
  trx: Knex.Transaction,
  scope: Scope,
  w: BulkWrite,
): Promise<Map<string, LiveRow[]>> {
  const live = new Map<string, LiveRow[]>();
  if (w.points.length > 0) {
    const dates = w.points.map((p) => p.date).sort();
    const categoryIds = [...new Set(w.points.map((p) => p.category_id))];
    for (const ids of chunk(categoryIds, INSERT_BATCH)) {
      const qb = trx('metric_data')
        .where({ company_id: w.companyId, firm_id: scope.firmId })
        .whereIn('category_id', ids)
        .whereBetween('date', [dates[0]!, dates[dates.length - 1]!])
        .whereNull('deleted_at');
      if (w.budgetId) qb.where('budget_id', w.budgetId);
      else qb.whereNull('budget_id');
      const rows = (await qb
        .orderBy([{ column: 'created_at' }, { column: 'id' }])
        .select('id', 'category_id', 'cadence', 'date', 'value', 'currency')) as LiveRow[];
      for (const row of rows) {
        const key = pointKey(row);
        live.set(key, [...(live.get(key) ?? []), row]);
      }
    }
  }
  return live;
}

/**
 * What a bulk write does to each point: inserts a new datum, or overwrites, skips or leaves the live
 * data it met; with the metric_history row of every creation and every changed value.
 */
function planWrites(scope: Scope, w: BulkWrite, live: Map<string, LiveRow[]>) {
  const inserts: Record<string, unknown>[] = [];
  const history: Record<string, unknown>[] = [];
  const updates: { id: string; value: string; currency: string | null; source?: string }[] = [];
  const written: WrittenPoint[] = [];
  for (const p of w.points) {
    const existing = live.get(pointKey(p));
    if (!existing) {
      const id = newId();
      inserts.push({
        id,
        firm_id: scope.firmId,
        company_id: w.companyId,
        category_id: p.category_id,
        cadence: p.cadence,
        date: p.date,
        value: p.value,
        currency: p.currency,
        budget_id: w.budgetId,
        detailed_source: p.detailed_source ?? w.detailedSource ?? 'api',
        archived: false,
        deleted_at: null,
        created_at: w.at,
        updated_at: w.at,
      });
      history.push(historyRow({ id, old_value: null, old_currency: null, ...p }, 0, w.userId, w.at));
      written.push({ id, outcome: 'created', value: p.value, currency: p.currency });
      continue;
    }
    const first = existing[0]!;
    if (w.mode === 'skip') {
      written.push({ id: first.id, outcome: 'skipped', value: first.value, currency: first.currency });
      continue;
    }
    const changed = existing.filter((e) => e.value !== p.value || e.currency !== p.currency);
    for (const e of changed) {
      updates.push({
        id: e.id,
        value: p.value,
        currency: p.currency,
        source: p.detailed_source ?? w.detailedSource,
      });
      history.push(
        historyRow({ id: e.id, old_value: e.value, old_currency: e.currency, ...p }, 0, w.userId, w.at),
      );
    }
    written.push({
      id: first.id,
      outcome: changed.length > 0 ? 'overwritten' : 'unchanged',
      value: p.value,
      currency: p.currency,
    });
  }
  return { inserts, history, updates, written };
}

/** A live (not deleted) datum the caller can see: its firm and, where access is limited, its company. */
function visibleDatum(db: Knex | Knex.Transaction, scope: Scope, id: string): Knex.QueryBuilder {
  return scoped(db('metric_data'), scope, 'metric_data')
    .where('metric_data.id', id)
    .whereNull('metric_data.deleted_at');
}

/** Changes to one metric datum: value, currency and appended comments, each kept in metric_history. */
export function metricWritesRepo(db: Knex) {
  return {
    /** The datum with its category, or undefined when it is unknown, deleted or not visible. */
    async target(scope: Scope, id: string): Promise<DatumTarget | undefined> {
      const row = (await visibleDatum(db, scope, id)
        .join('metric_categories', 'metric_categories.id', 'metric_data.category_id')
        .select(
          'metric_data.id',
          'metric_data.company_id',
          'metric_data.date',
          'metric_data.cadence',
          'metric_data.budget_id',
          'metric_data.value',
          'metric_data.currency',
          'metric_data.archived',
          'metric_categories.name as category_name',
          'metric_categories.category_type',
          'metric_categories.is_standard',
          'metric_categories.choices',
        )
        .first()) as
        | (Omit<DatumTarget, 'archived' | 'is_standard' | 'choices'> & {
            archived: unknown;
            is_standard: unknown;
            choices: string | null;
          })
        | undefined;
      if (!row) return undefined;
      return {
        ...row,
        archived: bool(row.archived),
        is_standard: bool(row.is_standard),
        choices: parseChoices(row.choices),
      };
    },

    /**
     * Applies one change and its history row in a single transaction, and returns the datum with all
     * its comments. The datum row is locked first (PostgreSQL; SQLite has one writer), so concurrent
     * updates of one datum take comment positions one after the other and none is lost.
     * Undefined when the datum is unknown, deleted or not visible.
     */
    async update(
      scope: Scope,
      id: string,
      change: MetricChange,
      author: ChangeAuthor,
      at: string,
    ): Promise<UpdatedDatum | undefined> {
      return db.transaction(async (trx) => {
        const current = (await visibleDatum(trx, scope, id)
          .forUpdate()
          .select('metric_data.id', 'metric_data.value', 'metric_data.currency')
          .first()) as { id: string; value: string; currency: string | null } | undefined;
        if (!current) return undefined;

        const value = change.value ?? current.value;
        const currency = change.currency ?? current.currency;
        const comments = change.comments ?? [];
        await trx('metric_data').where({ id }).update({ value, currency, updated_at: at });

        if (comments.length > 0) {
          const last = (await trx('metric_comments').where({ datum_id: id }).max({ seq: 'seq' }).first()) as
            | { seq: number | string | null }
            | undefined;
          const start = Number(last?.seq ?? 0) + 1;
          await trx('metric_comments').insert(
            comments.map((content, i) => ({
              id: newId(),
              datum_id: id,
              content,
              updated_by: author.name,
              updated_at: at,
              seq: start + i,
            })),
          );
        }

        await trx('metric_history').insert(
          historyRow(
            { id, old_value: current.value, old_currency: current.currency, value, currency },
            comments.length,
            author.userId,
            at,
          ),
        );

        const all = (await trx('metric_comments')
          .where({ datum_id: id })
          .orderBy([{ column: 'seq' }, { column: 'id' }])
          .select('content', 'updated_by', 'updated_at')) as UpdatedComment[];
        return { id, value, currency, comments: all };
      });
    },

    // Bulk writes (the import): the same rows and history as above, many at a time.

    /** The live data of these companies in these categories, by datumKey; the oldest where two share a key. */
    async liveData(
      firmId: string,
      companyIds: readonly string[],
      categoryIds: readonly string[],
    ): Promise<Map<string, LiveDatum>> {
      const out = new Map<string, LiveDatum>();
      for (const companies of chunk([...new Set(companyIds)], LOOKUP_BATCH)) {
        for (const categories of chunk([...new Set(categoryIds)], LOOKUP_BATCH)) {
          const rows = (await db('metric_data')
            .where({ firm_id: firmId })
            .whereIn('company_id', companies)
            .whereIn('category_id', categories)
            .whereNull('deleted_at')
            .orderBy(['created_at', 'id'])
            .select(
              'id',
              'company_id',
              'category_id',
              'date',
              'cadence',
              'budget_id',
              'value',
              'currency',
            )) as LiveDatum[];
          for (const row of rows) {
            const key = datumKey(row);
            if (!out.has(key)) out.set(key, row);
          }
        }
      }
      return out;
    },

    /** Inserts live data of one firm, stamped created and updated at `at`. */
    async insertData(firmId: string, data: readonly NewDatum[], at: string): Promise<void> {
      await insertBatched(
        db,
        'metric_data',
        data.map((d) => ({
          ...d,
          firm_id: firmId,
          archived: false,
          deleted_at: null,
          created_at: at,
          updated_at: at,
        })),
      );
    },

    /** Sets new values and currencies, each change kept in metric_history as made by `changedBy`. */
    async replaceValues(changes: readonly ValueChange[], changedBy: string, at: string): Promise<void> {
      await updateValues(db, changes, at);
      await insertBatched(
        db,
        'metric_history',
        changes.map((change) => historyRow(change, 0, changedBy, at)),
      );
    },

    /**
     * Writes many points of one company and one budget (or none) in one transaction: points that meet
     * no live datum of the same category, cadence and date are inserted in batches; the others are
     * overwritten, skipped, or (mode `error`) reported without anything written. Every creation and
     * every changed value is recorded in metric_history (a creation with old_value null).
     * The caller has checked that the company and budget are visible and the points valid.
     */
    async writeMany(scope: Scope, w: BulkWrite): Promise<BulkResult> {
      return db.transaction(async (trx) => {
        // Concurrent writes to one company queue here, so two of them cannot both create one point.
        if (isPostgres(trx)) {
          await trx('companies').where({ id: w.companyId, firm_id: scope.firmId }).forUpdate().select('id');
        }
        const live = await liveRowsOf(trx, scope, w);

        if (w.mode === 'error') {
          const conflicts = w.points.flatMap((p, i) => (live.has(pointKey(p)) ? [i] : []));
          if (conflicts.length > 0) return { written: [], conflicts };
        }

        const { inserts, history, updates, written } = planWrites(scope, w, live);
        await insertMany(db, trx, 'metric_data', inserts);
        await updateValues(trx, updates, w.at);
        await insertMany(db, trx, 'metric_history', history);
        return { written, conflicts: [] };
      });
    },

    /**
     * Marks one live datum deleted and records its last value in metric_history (new_value null).
     * False when the datum is unknown, already deleted or not visible.
     */
    async softDelete(scope: Scope, id: string, userId: string, at: string): Promise<boolean> {
      return db.transaction(async (trx) => {
        const current = (await visibleDatum(trx, scope, id)
          .forUpdate()
          .select('metric_data.value', 'metric_data.currency')
          .first()) as { value: string; currency: string | null } | undefined;
        if (!current) return false;
        await trx('metric_data').where({ id }).update({ deleted_at: at, updated_at: at });
        await trx('metric_history').insert(
          historyRow(
            { id, old_value: current.value, old_currency: current.currency, value: null, currency: null },
            0,
            userId,
            at,
          ),
        );
        return true;
      });
    },
  };
}
export type MetricWritesRepo = ReturnType<typeof metricWritesRepo>;

/**
 * Rows of one shape, in the transaction: on SQLite one prepared single-row statement run per row on
 * the transaction's own connection (knex compiles a batch into a UNION ALL of SELECTs, several times
 * slower to prepare); on PostgreSQL one multi-row VALUES statement per batch.
 */
async function insertMany(db: Knex, trx: Knex.Transaction, table: string, rows: Record<string, unknown>[]) {
  if (rows.length === 0) return;
  const columns = Object.keys(rows[0]!);
  // SQLite's one connection: inside the transaction, it is the transaction's.
  const conn = isPostgres(trx) ? undefined : sqliteConnectionOf(db);
  if (conn?.inTransaction) {
    const insert = conn.prepare(
      `insert into "${table}" (${columns.map((c) => `"${c}"`).join(', ')}) values (${columns.map(() => '?').join(', ')})`,
    );
    for (const row of rows) {
      insert.run(columns.map((c) => (typeof row[c] === 'boolean' ? (row[c] ? 1 : 0) : row[c])));
    }
    return;
  }
  const tuple = `(${columns.map(() => '?').join(', ')})`;
  for (const batch of chunk(rows, INSERT_BATCH)) {
    await trx.raw(
      `insert into ?? (${columns.map(() => '??').join(', ')}) values ${batch.map(() => tuple).join(', ')}`,
      [table, ...columns, ...batch.flatMap((row) => columns.map((c) => row[c] as Knex.Value))],
    );
  }
}

/**
 * New values of many data in one statement per batch (UPDATE … FROM, SQLite 3.33+ and PostgreSQL),
 * each with its new source where it has one (a review names each point's own cell).
 */
async function updateValues(
  trx: Knex | Knex.Transaction,
  updates: readonly { id: string; value: string; currency: string | null; source?: string }[],
  at: string,
) {
  for (const batch of chunk(updates, INSERT_BATCH)) {
    await trx.raw(
      `with v(id, value, currency, source) as (values ${batch.map(() => '(?, ?, ?, ?)').join(', ')}) ` +
        'update metric_data set value = v.value, currency = v.currency, updated_at = ?, ' +
        'detailed_source = coalesce(v.source, metric_data.detailed_source) ' +
        'from v where metric_data.id = v.id',
      [...batch.flatMap((u) => [u.id, u.value, u.currency, u.source ?? null]), at],
    );
  }
}
