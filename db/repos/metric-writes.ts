import type { Knex } from 'knex';
import { parseChoices } from '../../core/categories.ts';
import type { Scope } from '../../core/principal.ts';
import { newId } from '../ids.ts';
import { bool, chunk, insertBatched, scoped } from './util.ts';

/** What an update needs to know about a datum before it changes it. */
export interface DatumTarget {
  id: string;
  company_id: string;
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
  old_value: string;
  old_currency: string | null;
  value: string;
  currency: string | null;
}

/** The text form of a datum key, for maps. */
export function datumKey(d: DatumKey): string {
  return [d.company_id, d.category_id, d.date, d.cadence, d.budget_id ?? ''].join('|');
}

/** The metric_history row of one change of a datum. */
function historyRow(change: ValueChange, commentsAdded: number, changedBy: string, at: string) {
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
      for (const change of changes) {
        await db('metric_data')
          .where({ id: change.id })
          .update({ value: change.value, currency: change.currency, updated_at: at });
      }
      await insertBatched(
        db,
        'metric_history',
        changes.map((change) => historyRow(change, 0, changedBy, at)),
      );
    },
  };
}
export type MetricWritesRepo = ReturnType<typeof metricWritesRepo>;
