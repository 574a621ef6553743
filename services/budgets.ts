import { newId } from '../db/ids.ts';
import type { BudgetRow } from '../db/repos/budgets.ts';
import { type Recorder, record } from './changes.ts';

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
