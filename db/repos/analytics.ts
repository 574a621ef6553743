import type { Knex } from 'knex';
import { byBudgetRule } from '../../core/budget-rule.ts';
import { standardCategoryId } from '../../core/categories.ts';
import type { Scope } from '../../core/principal.ts';
import { isPostgres } from '../knex.ts';
import { bool, chunk, scoped } from './util.ts';

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

/** The columns of metric_data after its id and keys that an AnalyticsDatum is read from. */
export const ANALYTICS_DATUM_COLUMNS = [
  'metric_data.cadence',
  'metric_data.date',
  'metric_data.value',
  'metric_data.currency',
  'metric_data.archived',
  'metric_data.created_at',
  'metric_data.updated_at',
] as const;

/** A metric_data row as selected with ANALYTICS_DATUM_COLUMNS, before its category is named. */
export type StoredAnalyticsDatum = Omit<AnalyticsDatum, 'category' | 'archived'> & { archived: unknown };

/** A stored row as the datum of `category`, its other columns kept. */
export function analyticsDatum<R extends StoredAnalyticsDatum>(
  row: R,
  category: string,
): Omit<R, 'archived'> & { category: string; archived: boolean } {
  return { ...row, category, archived: bool(row.archived) };
}

export interface FxRateRow {
  from_currency: string;
  to_currency: string;
  date: string;
  rate: string;
}

export interface LatestRequest {
  id: string;
  name: string;
  due_date: string;
}

export interface RequestReport {
  company_id: string;
  submitted_at: string | null;
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
  // Reads of given categories walk the (company, category, date) index. SQLite's planner, without
  // statistics, prefers the partial index of live rows (migration 016) because it also names firm_id,
  // and then reads every category of every company in the date range: four times slower on a portfolio.
  const byCategory = () =>
    isPostgres(db)
      ? db('metric_data')
      : db.from(db.raw('?? indexed by ??', ['metric_data', 'metric_data_company_category']));

  /** Reported values (budgetId null) or the figures of one budget. */
  function reported(
    scope: Scope,
    companyId: string,
    categories: readonly string[],
    budgetId: string | null = null,
  ) {
    const qb = scoped(byCategory(), scope, 'metric_data')
      .where('metric_data.company_id', companyId)
      .whereIn('metric_data.category_id', categories.map(standardCategoryId))
      .whereNull('metric_data.deleted_at');
    return budgetId === null
      ? qb.whereNull('metric_data.budget_id')
      : qb.where('metric_data.budget_id', budgetId);
  }

  function reportedMany(scope: Scope, companyIds: readonly string[], categories?: readonly string[]) {
    const qb = scoped(categories ? byCategory() : db('metric_data'), scope, 'metric_data')
      .whereIn('metric_data.company_id', companyIds as string[])
      .whereNull('metric_data.deleted_at')
      .whereNull('metric_data.budget_id');
    if (categories) qb.whereIn('metric_data.category_id', categories.map(standardCategoryId));
    return qb;
  }

  function notes(scope: Scope, companyId: string) {
    return scoped(db('notes'), scope, 'notes').where('notes.company_id', companyId);
  }

  return {
    /**
     * The date of the newest reported value among these standard categories on or before `through` (the
     * end of the current month: a row stored with a future date never moves the as-of month), or null.
     */
    async latestDate(
      scope: Scope,
      companyId: string,
      categories: readonly string[],
      through: string,
    ): Promise<string | null> {
      const row = (await reported(scope, companyId, categories)
        .where('metric_data.date', '<=', through)
        .max({ d: 'metric_data.date' })
        .first()) as { d: string | null } | undefined;
      return row?.d ?? null;
    },

    /**
     * Per company, the date of its newest actual (non-budget) value: of these standard categories, or of
     * any category when none are given, on or before `through` (the end of the current month, so a row
     * stored with a future date never moves a company's or the firm's latest month). Companies without
     * data are absent.
     */
    async latestDates(
      scope: Scope,
      companyIds: readonly string[],
      through: string,
      categories?: readonly string[],
    ): Promise<Map<string, string>> {
      const out = new Map<string, string>();
      for (const ids of chunk(companyIds, 500)) {
        // One newest-row probe per company down the (company_id, date) index, instead of a scan of all rows.
        const newest = db('metric_data as m')
          .whereRaw('m.company_id = companies.id')
          .whereNull('m.deleted_at')
          .whereNull('m.budget_id')
          .where('m.date', '<=', through)
          .orderBy('m.date', 'desc')
          .limit(1)
          .select('m.date');
        if (categories) newest.whereIn('m.category_id', categories.map(standardCategoryId));
        const rows = (await scoped(db('companies'), scope, 'companies', 'id')
          .whereIn('companies.id', ids as string[])
          .select('companies.id', newest.as('d'))) as { id: string; d: string | null }[];
        for (const r of rows) if (r.d) out.set(r.id, r.d);
      }
      return out;
    },

    /** Every reported value of many companies in each category of `since`, dated from its date to `through`. */
    async seriesMany(
      scope: Scope,
      companyIds: readonly string[],
      since: ReadonlyMap<string, string>,
      through: string,
    ): Promise<(AnalyticsDatum & { company_id: string })[]> {
      const categories = [...since.keys()];
      const names = new Map(categories.map((c) => [standardCategoryId(c), c]));
      const out: (AnalyticsDatum & { company_id: string })[] = [];
      const byFrom = new Map<string, string[]>();
      for (const [category, from] of since) byFrom.set(from, [...(byFrom.get(from) ?? []), category]);
      // One query per chunk of companies and start date: each a range scan of the (company, category, date) index.
      const queries = chunk(companyIds, 500).flatMap((ids) =>
        [...byFrom].map((entry) => [ids, ...entry] as const),
      );
      for (const [ids, from, group] of queries) {
        const rows = (await reportedMany(scope, ids, group)
          .where('metric_data.date', '>=', from)
          .where('metric_data.date', '<=', through)
          .select(
            'metric_data.id',
            'metric_data.company_id',
            'metric_data.category_id',
            ...ANALYTICS_DATUM_COLUMNS,
          )) as (StoredAnalyticsDatum & { company_id: string; category_id: string })[];
        for (const { category_id, ...r } of rows) out.push(analyticsDatum(r, names.get(category_id)!));
      }
      return out;
    },

    /**
     * The firm's information request with the latest due date on or before `today`, with the report
     * of each visible company asked in it.
     */
    async latestDueRequest(
      scope: Scope,
      today: string,
    ): Promise<{ request: LatestRequest; reports: RequestReport[] } | null> {
      const request = (await db('information_requests')
        .where('firm_id', scope.firmId)
        // A draft was never sent: nobody can be late with it.
        .whereNot('status', 'draft')
        .where('due_date', '<=', today)
        .orderBy([
          { column: 'due_date', order: 'desc' },
          { column: 'id', order: 'desc' },
        ])
        .select('id', 'name', 'due_date')
        .first()) as LatestRequest | undefined;
      if (!request) return null;
      const reports = (await scoped(db('information_reports'), scope, 'information_reports')
        .where('information_reports.information_request_id', request.id)
        .select('information_reports.company_id', 'information_reports.submitted_at')) as RequestReport[];
      return { request, reports };
    },

    /**
     * Per company, the figures of one category in the budget that counts (`byBudgetRule`: the budget
     * get_budget_variance compares by default), oldest first; archived figures left out.
     */
    async latestBudgetFigures(
      scope: Scope,
      companyIds: readonly string[],
      category: string,
    ): Promise<Map<string, { budget_id: string; budget_name: string; figures: AnalyticsDatum[] }>> {
      const out = new Map<string, { budget_id: string; budget_name: string; figures: AnalyticsDatum[] }>();
      for (const ids of chunk(companyIds, 500)) {
        const budgets = (await scoped(db('budgets'), scope, 'budgets')
          .whereIn('budgets.company_id', ids as string[])
          .select(
            'budgets.id',
            'budgets.company_id',
            'budgets.name',
            'budgets.date',
            'budgets.created_at',
          )) as {
          id: string;
          company_id: string;
          name: string;
          date: string;
          created_at: string;
        }[];
        const latest = new Map<string, { id: string; name: string }>();
        for (const b of budgets.sort(byBudgetRule))
          if (!latest.has(b.company_id)) latest.set(b.company_id, b);
        if (latest.size === 0) continue;
        const byBudget = new Map([...latest].map(([companyId, b]) => [b.id, companyId]));
        const rows = (await db('metric_data')
          .where('metric_data.firm_id', scope.firmId)
          .whereIn('metric_data.budget_id', [...byBudget.keys()])
          .where('metric_data.category_id', standardCategoryId(category))
          .whereNull('metric_data.deleted_at')
          .orderBy([{ column: 'metric_data.date' }, { column: 'metric_data.id' }])
          .select(
            'metric_data.id',
            'metric_data.budget_id',
            ...ANALYTICS_DATUM_COLUMNS,
          )) as (StoredAnalyticsDatum & {
          budget_id: string;
        })[];
        for (const [companyId, b] of latest)
          out.set(companyId, { budget_id: b.id, budget_name: b.name, figures: [] });
        for (const { budget_id, ...r } of rows) {
          if (bool(r.archived)) continue;
          out.get(byBudget.get(budget_id)!)!.figures.push(analyticsDatum(r, category));
        }
      }
      return out;
    },

    /** The funds each company is in, with the fund's name, ordered by fund name. */
    async companyFunds(
      firmId: string,
      companyIds: readonly string[],
    ): Promise<{ company_id: string; fund_id: string; fund_name: string }[]> {
      const out: { company_id: string; fund_id: string; fund_name: string }[] = [];
      for (const ids of chunk(companyIds, 500)) {
        out.push(
          ...((await db('company_funds')
            .join('funds', 'funds.id', 'company_funds.fund_id')
            .where('funds.firm_id', firmId)
            .whereIn('company_funds.company_id', ids as string[])
            .orderBy([{ column: 'funds.name' }, { column: 'funds.id' }])
            .select('company_funds.company_id', 'company_funds.fund_id', 'funds.name as fund_name')) as {
            company_id: string;
            fund_id: string;
            fund_name: string;
          }[]),
        );
      }
      return out;
    },

    /** Every rate of the firm into `to`, ordered by currency and date. */
    async allFxRates(firmId: string, to: string): Promise<FxRateRow[]> {
      return (await db('fx_rates')
        .where({ firm_id: firmId, to_currency: to })
        .orderBy([{ column: 'from_currency' }, { column: 'date' }])
        .select('from_currency', 'to_currency', 'date', 'rate')) as FxRateRow[];
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
          ...ANALYTICS_DATUM_COLUMNS,
        )) as (StoredAnalyticsDatum & {
        category_id: string;
      })[];
      return rows.map(({ category_id, ...r }) => analyticsDatum(r, names.get(category_id)!));
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
