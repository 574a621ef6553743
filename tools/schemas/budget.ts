import { z } from 'zod';
import type { BudgetWithCompany } from '../../db/repos/budgets.ts';

export const Budget = z.object({
  id: z.string().describe('Budget identifier (budget_id of budget metrics).'),
  date: z.string().describe('Budget date, YYYY-MM-DD.'),
  company: z.string().describe('Name of the company the budget belongs to.'),
  company_id: z.string(),
  company_slug: z.string().describe('Slug of that company.'),
  name: z.string(),
  color: z.string().describe('Display colour, #rrggbb.'),
  description: z.string(),
});
export type Budget = z.infer<typeof Budget>;

export function toBudget(row: BudgetWithCompany): Budget {
  return {
    id: row.id,
    date: row.date,
    company: row.company_name,
    company_id: row.company_id,
    company_slug: row.company_slug,
    name: row.name,
    color: row.color,
    description: row.description,
  };
}
