import { z } from 'zod';
import { budgetCadence } from '../../analytics/periods.ts';
import { Table, toTable } from '../concise.ts';
import { defineTool, readOnly, restPaging } from '../define.ts';
import { Budget, toBudget } from '../schemas/budget.ts';
import { companyRefFields, resolveCompany } from '../schemas/company-ref.ts';
import { listOf, pageFields, pageResult, toPage } from '../schemas/page.ts';
import { sortByField, sortDirection } from '../schemas/sort-by.ts';

export const listBudgets = defineTool({
  name: 'list_budgets',
  title: 'List budgets',
  description:
    "Budgets (a company's named planning scenarios), newest first. Budget figures are metrics: get_company_metrics with include_budgets reads them; get_budget_variance compares them with actuals.",
  input: z.object({
    ...pageFields,
    ...companyRefFields('budgets'),
    sort_by: sortByField,
  }),
  output: listOf(
    Budget.extend({
      cadence: z.string().nullable().describe('Of its figures: monthly, quarterly, annual (or several).'),
    }),
  ),
  annotations: readOnly,
  // Concise: one table, without the display colour and slug.
  concise: ({ results, ...rest }) => ({
    ...rest,
    budgets: toTable(results, ['id', 'date', 'company', 'company_id', 'name', 'cadence', 'description']),
  }),
  conciseOutput: z.object({ budgets: Table }),
  routes: [
    {
      method: 'GET',
      path: '/v1/budgets/',
      summary: 'List budgets',
      rename: restPaging,
      envelope: 'page',
      mcpOnly: ['cadence'],
    },
  ],
  async handler(ctx, input) {
    const company = await resolveCompany(ctx, input);
    const counted = await ctx.repos.budgets.list(
      ctx.principal.scope,
      { companyId: company?.id, createdAt: sortDirection(input.sort_by) },
      toPage(input),
    );
    const cadences = await ctx.repos.budgets.cadences(
      ctx.principal.scope,
      counted.rows.map((r) => r.id),
    );
    return pageResult(input, counted, (row) => ({
      ...toBudget(row),
      cadence: budgetCadence(cadences.get(row.id) ?? []),
    }));
  },
});
