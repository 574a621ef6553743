import type { Knex } from 'knex';
import { standardCategoryId } from '../../core/categories.ts';
import type { Scope } from '../../core/principal.ts';
import { bool, scoped } from './util.ts';

/** One reported value of a standard category, as the analytics tools read it. */
export interface AnalyticsDatum {
  id: string;
  category: string;
  cadence: string;
  date: string;
  value: string;
  currency: string | null;
  archived: boolean;
  created_at: string;
  updated_at: string;
}

export interface FxRateRow {
  from_currency: string;
  to_currency: string;
  date: string;
  rate: string;
}

export interface NotesOverview {
  count: number;
  first_at: string | null;
  last_at: string | null;
}

export interface NoteAuthorCount {
  author_id: string;
  first_name: string;
  last_name: string;
  email: string;
  count: number;
}

export interface RecentNote {
  id: string;
  company_id: string;
  author_id: string;
  note: string;
  created_at: string;
  author_first_name: string;
  author_last_name: string;
  author_email: string;
}

/**
 * Reads for the analytics tools: whole series of one company (never a page), the firm's FX rates
 * and note aggregates. Deleted and budget rows never count; archived rows do, as in /v1/metrics.
 */
export function analyticsRepo(db: Knex) {
  /** Reported values (budgetId null) or the figures of one budget. */
  function reported(
    scope: Scope,
    companyId: string,
    categories: readonly string[],
    budgetId: string | null = null,
  ) {
    const qb = scoped(db('metric_data'), scope, 'metric_data')
      .where('metric_data.company_id', companyId)
      .whereIn('metric_data.category_id', categories.map(standardCategoryId))
      .whereNull('metric_data.deleted_at');
    return budgetId === null
      ? qb.whereNull('metric_data.budget_id')
      : qb.where('metric_data.budget_id', budgetId);
  }

  function notes(scope: Scope, companyId: string) {
    return scoped(db('notes'), scope, 'notes').where('notes.company_id', companyId);
  }

  return {
    /** The date of the newest reported value among these standard categories, or null when none. */
    async latestDate(scope: Scope, companyId: string, categories: readonly string[]): Promise<string | null> {
      const row = (await reported(scope, companyId, categories).max({ d: 'metric_data.date' }).first()) as
        | { d: string | null }
        | undefined;
      return row?.d ?? null;
    },

    /**
     * Every reported value (or, with `budgetId`, every figure of that budget) of these standard
     * categories dated within [from, to], oldest first.
     */
    async series(
      scope: Scope,
      companyId: string,
      categories: readonly string[],
      from: string,
      to: string,
      budgetId: string | null = null,
    ): Promise<AnalyticsDatum[]> {
      const names = new Map(categories.map((c) => [standardCategoryId(c), c]));
      const rows = (await reported(scope, companyId, categories, budgetId)
        .where('metric_data.date', '>=', from)
        .where('metric_data.date', '<=', to)
        .orderBy([
          { column: 'metric_data.date' },
          { column: 'metric_data.category_id' },
          { column: 'metric_data.id' },
        ])
        .select(
          'metric_data.id',
          'metric_data.category_id',
          'metric_data.cadence',
          'metric_data.date',
          'metric_data.value',
          'metric_data.currency',
          'metric_data.archived',
          'metric_data.created_at',
          'metric_data.updated_at',
        )) as (Omit<AnalyticsDatum, 'category' | 'archived'> & { category_id: string; archived: unknown })[];
      return rows.map(({ category_id, ...r }) => ({
        ...r,
        category: names.get(category_id)!,
        archived: bool(r.archived),
      }));
    },

    /**
     * The firm's rates from each currency into `to` that can apply to dates in [from, until]: every
     * rate inside the range plus, per currency, the latest one before it. Ordered by date.
     */
    async fxRates(
      firmId: string,
      to: string,
      currencies: readonly string[],
      from: string,
      until: string,
    ): Promise<FxRateRow[]> {
      const out: FxRateRow[] = [];
      for (const currency of currencies) {
        const base = () =>
          db('fx_rates')
            .where({ firm_id: firmId, from_currency: currency, to_currency: to })
            .select('from_currency', 'to_currency', 'date', 'rate');
        const before = (await base().where('date', '<', from).orderBy('date', 'desc').first()) as
          | FxRateRow
          | undefined;
        const inside = (await base()
          .where('date', '>=', from)
          .where('date', '<=', until)
          .orderBy('date')) as FxRateRow[];
        if (before) out.push(before);
        out.push(...inside);
      }
      return out;
    },

    async notesOverview(scope: Scope, companyId: string): Promise<NotesOverview> {
      const row = (await notes(scope, companyId)
        .count({ n: '*' })
        .min({ first_at: 'notes.created_at' })
        .max({ last_at: 'notes.created_at' })
        .first()) as { n: number | string; first_at: string | null; last_at: string | null } | undefined;
      return { count: Number(row?.n ?? 0), first_at: row?.first_at ?? null, last_at: row?.last_at ?? null };
    },

    /** Every author of the company's notes with how many they wrote (unordered). */
    async noteAuthors(scope: Scope, companyId: string): Promise<NoteAuthorCount[]> {
      const rows = (await notes(scope, companyId)
        .join('users', 'users.id', 'notes.author_id')
        .groupBy('users.id', 'users.first_name', 'users.last_name', 'users.email')
        .select('users.id as author_id', 'users.first_name', 'users.last_name', 'users.email')
        .count({ n: 'notes.id' })) as (Omit<NoteAuthorCount, 'count'> & { n: number | string })[];
      return rows.map(({ n, ...r }) => ({ ...r, count: Number(n) }));
    },

    /** The newest `limit` notes of the company, in list_notes' default order (newest first, then id). */
    async recentNotes(scope: Scope, companyId: string, limit: number): Promise<RecentNote[]> {
      if (limit <= 0) return [];
      return (await notes(scope, companyId)
        .join('users', 'users.id', 'notes.author_id')
        .orderBy([{ column: 'notes.created_at', order: 'desc' }, { column: 'notes.id' }])
        .limit(limit)
        .select(
          'notes.id',
          'notes.company_id',
          'notes.author_id',
          'notes.note',
          'notes.created_at',
          'users.first_name as author_first_name',
          'users.last_name as author_last_name',
          'users.email as author_email',
        )) as RecentNote[];
    },
  };
}
export type AnalyticsRepo = ReturnType<typeof analyticsRepo>;
