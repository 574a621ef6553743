import type { Knex } from 'knex';
import { parseChoices } from '../../core/categories.ts';
import type { Scope } from '../../core/principal.ts';
import { newId } from '../ids.ts';
import { bool, scoped } from './util.ts';

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

        await trx('metric_history').insert({
          id: newId(),
          datum_id: id,
          old_value: current.value,
          new_value: value,
          old_currency: current.currency,
          new_currency: currency,
          comments_added: comments.length,
          changed_by: author.userId,
          changed_at: at,
        });

        const all = (await trx('metric_comments')
          .where({ datum_id: id })
          .orderBy([{ column: 'seq' }, { column: 'id' }])
          .select('content', 'updated_by', 'updated_at')) as UpdatedComment[];
        return { id, value, currency, comments: all };
      });
    },
  };
}
export type MetricWritesRepo = ReturnType<typeof metricWritesRepo>;
