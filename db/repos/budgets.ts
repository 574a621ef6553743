import type { Knex } from 'knex';
import type { Scope } from '../../core/principal.ts';
import type { Counted, Page } from '../types.ts';
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
    /** The company's budget with the newest date (then the newest created), or undefined when it has none. */
    async latest(scope: Scope, companyId: string): Promise<BudgetRow | undefined> {
      return scoped(db('budgets'), scope, 'budgets')
        .where('budgets.company_id', companyId)
        .orderBy([
          { column: 'budgets.date', order: 'desc' },
          { column: 'budgets.created_at', order: 'desc' },
          { column: 'budgets.id' },
        ])
        .first();
    },
    async create(budget: BudgetRow): Promise<void> {
      await db('budgets').insert(budget);
    },
  };
}
export type BudgetsRepo = ReturnType<typeof budgetsRepo>;
