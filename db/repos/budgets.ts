import type { Knex } from 'knex';
import { budgetThatCounts } from '../../core/budget-rule.ts';
import { standardCategoryId } from '../../core/categories.ts';
import type { Scope } from '../../core/principal.ts';
import type { Counted, Page } from '../types.ts';
import {
  ANALYTICS_DATUM_COLUMNS,
  type AnalyticsDatum,
  analyticsDatum,
  type StoredAnalyticsDatum,
} from './analytics.ts';
import { countAndPage, scoped } from './util.ts';

export interface BudgetRow {
  id: string;
  firm_id: string;
  company_id: string;
  name: string;
  date: string;
  color: string;
  description: string;
  created_at: string;
}

/** A new budget: the columns not given (colour, description) take their defaults. */
export type NewBudget = Pick<BudgetRow, 'id' | 'firm_id' | 'company_id' | 'name' | 'date' | 'created_at'> &
  Partial<Pick<BudgetRow, 'color' | 'description'>>;

/** The fields of a budget a write may change. */
export type BudgetChanges = Partial<Pick<BudgetRow, 'date' | 'color' | 'description'>>;

export interface BudgetWithCompany extends BudgetRow {
  company_name: string;
  company_slug: string;
}

export interface BudgetFilter {
  companyId?: string;
  /** Order by created_at instead of the default (date, newest first). */
  createdAt?: 'asc' | 'desc';
}

export function budgetsRepo(db: Knex) {
  return {
    async list(scope: Scope, filter: BudgetFilter, page: Page): Promise<Counted<BudgetWithCompany>> {
      const base = scoped(db('budgets'), scope, 'budgets');
      if (filter.companyId) base.where('budgets.company_id', filter.companyId);
      return countAndPage<BudgetWithCompany>(
        db,
        base,
        page,
        (qb) =>
          qb.orderBy([
            filter.createdAt
              ? { column: 'budgets.created_at', order: filter.createdAt }
              : { column: 'budgets.date', order: 'desc' },
            { column: 'budgets.id' },
          ]),
        (qb) =>
          qb
            .join('companies', 'companies.id', 'budgets.company_id')
            .select('budgets.*', 'companies.name as company_name', 'companies.slug as company_slug'),
      );
    },
    async get(scope: Scope, id: string): Promise<BudgetRow | undefined> {
      return scoped(db('budgets'), scope, 'budgets').where('budgets.id', id).first();
    },
    /** The company's budget that counts (`byBudgetRule`), or undefined when it has none. */
    async latest(scope: Scope, companyId: string): Promise<BudgetRow | undefined> {
      // Ordered by the budget rule in code, as every other reader of it is: ids sort alike on both databases.
      return budgetThatCounts(
        (await scoped(db('budgets'), scope, 'budgets')
          .where('budgets.company_id', companyId)
          .select('budgets.*')) as BudgetRow[],
      );
    },
    /** Every live figure of these standard categories in the visible companies' budgets, oldest first. */
    async figures(
      scope: Scope,
      categories: readonly string[],
    ): Promise<(AnalyticsDatum & { company_id: string; budget_id: string })[]> {
      const names = new Map(categories.map((c) => [standardCategoryId(c), c]));
      const rows = (await scoped(db('metric_data'), scope, 'metric_data')
        .whereNotNull('metric_data.budget_id')
        .whereNull('metric_data.deleted_at')
        .whereIn('metric_data.category_id', [...names.keys()])
        .orderBy([{ column: 'metric_data.date' }, { column: 'metric_data.id' }])
        .select(
          'metric_data.id',
          'metric_data.company_id',
          'metric_data.budget_id',
          'metric_data.category_id',
          ...ANALYTICS_DATUM_COLUMNS,
        )) as (StoredAnalyticsDatum & { company_id: string; budget_id: string; category_id: string })[];
      return rows.map(({ category_id, ...r }) => analyticsDatum(r, names.get(category_id)!));
    },
    /** The cadences of each budget's live figures, by budget id. */
    async cadences(scope: Scope, budgetIds: readonly string[]): Promise<Map<string, string[]>> {
      const out = new Map<string, string[]>();
      if (budgetIds.length === 0) return out;
      const rows = (await scoped(db('metric_data'), scope, 'metric_data')
        .whereIn('metric_data.budget_id', budgetIds)
        .whereNull('metric_data.deleted_at')
        .distinct('metric_data.budget_id', 'metric_data.cadence')
        .orderBy(['metric_data.budget_id', 'metric_data.cadence'])) as {
        budget_id: string;
        cadence: string;
      }[];
      for (const r of rows) out.set(r.budget_id, [...(out.get(r.budget_id) ?? []), r.cadence]);
      return out;
    },
    /** Every budget of the visible companies. */
    async all(scope: Scope): Promise<BudgetRow[]> {
      return scoped(db('budgets'), scope, 'budgets').select('budgets.*');
    },
    /** A company's budget of this name (the oldest, if several), or undefined. */
    async named(firmId: string, companyId: string, name: string): Promise<BudgetRow | undefined> {
      return (await db('budgets')
        .where({ firm_id: firmId, company_id: companyId, name })
        .orderBy([{ column: 'created_at' }, { column: 'id' }])
        .first()) as BudgetRow | undefined;
    },
    async create(budget: NewBudget): Promise<void> {
      await db('budgets').insert(budget);
    },
    /** Changes the given fields of one budget of the firm. */
    async update(firmId: string, id: string, changes: BudgetChanges): Promise<void> {
      await db('budgets').where({ firm_id: firmId, id }).update(changes);
    },
  };
}
export type BudgetsRepo = ReturnType<typeof budgetsRepo>;
