// The one write path of budgets: a budget is written with its change-log row and event.
import { newId } from '../db/ids.ts';
import type { BudgetChanges, BudgetRow, NewBudget } from '../db/repos/budgets.ts';
import { type Recorded, type Recorder, record } from './changes.ts';

/** A budget as its event carries it: the stored columns but the firm. */
export interface BudgetRecord {
  id: string;
  company_id: string;
  name?: string;
  date?: string;
  color?: string | null;
  description?: string | null;
}

/** The change-log row and event of a budget written by any path. */
function budgetRecorded(
  budget: BudgetRecord,
  action: 'create' | 'update',
  changes: Record<string, unknown>,
): Recorded {
  return {
    change: { entity: 'budgets', entityId: budget.id, action, changes },
    event: {
      type: action === 'create' ? 'budget.created' : 'budget.updated',
      companyId: budget.company_id,
      resourceType: 'budget',
      resourceId: budget.id,
      data: { ...budget },
    },
  };
}

/** Adds a budget to a company of the recorder's firm, in the recorder's transaction. */
export async function createBudget(r: Recorder, budget: Omit<NewBudget, 'firm_id' | 'created_at'>) {
  await r.repos.budgets.create({ ...budget, firm_id: r.firmId, created_at: r.at });
  const { id: _id, name, company_id, ...fields } = budget;
  await record(r, budgetRecorded(budget, 'create', { name, company_id, ...fields }));
}

/** Changes fields of a stored budget, in the recorder's transaction; `stored` is the budget before. */
export async function updateBudget(r: Recorder, stored: BudgetRecord, changes: BudgetChanges) {
  await r.repos.budgets.update(r.firmId, stored.id, changes);
  await record(r, budgetRecorded({ ...stored, ...changes }, 'update', changes));
}

/**
 * The company's budget of this name, created (with its change-log row and budget.created event) in the
 * recorder's transaction when it has none; `date` is the new budget's date.
 */
export async function budgetNamed(
  recorder: Recorder,
  companyId: string,
  name: string,
  date: string,
): Promise<BudgetRow> {
  const existing = await recorder.repos.budgets.named(recorder.firmId, companyId, name);
  if (existing) return existing;
  const row: BudgetRow = {
    id: newId(),
    firm_id: recorder.firmId,
    company_id: companyId,
    name,
    date,
    color: '#ffffff',
    description: '',
    created_at: recorder.at,
  };
  await recorder.repos.budgets.create(row);
  const changes = { name, company_id: companyId, date };
  await record(recorder, {
    change: { entity: 'budgets', entityId: row.id, action: 'create', changes },
    event: {
      type: 'budget.created',
      companyId,
      resourceType: 'budget',
      resourceId: row.id,
      data: { id: row.id, ...changes },
    },
  });
  return row;
}
