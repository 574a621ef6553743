import { z } from 'zod';
import { defineTool, readOnly } from '../define.ts';
import { ConciseData, conciseData, Datum, toDatum } from '../schemas/datum.ts';
import { MAX_PER_PAGE } from '../schemas/page.ts';
import { CategoryIndex, visibleCompanyIds } from './filters.ts';

export const getCompanyRecentMetrics = defineTool({
  name: 'get_company_recent_metrics',
  title: 'Get the latest metrics of a company',
  description:
    'The latest data points of one company, newest first, optionally of one category, shaped as in get_company_metrics. For "what is the current cash / ARR / headcount"; for trends use get_company_performance.',
  input: z.object({
    company_id: z.string().min(1).describe('Company id.'),
    category: z
      .string()
      .min(1)
      .optional()
      .describe(
        'One category: a standard name such as cash_in_bank, custom for every custom metric, or a custom ' +
          'metric display name (see get_metrics_options). All categories when left out.',
      ),
    limit: z
      .number()
      .int()
      .min(1)
      .max(MAX_PER_PAGE)
      .default(10)
      .describe(`How many data points, 1 to ${MAX_PER_PAGE}. Default 10.`),
  }),
  output: z.object({
    company_id: z.string(),
    category: z.string().nullable().describe('The category asked for; null for all categories.'),
    limit: z.number().int(),
    count: z.number().int().describe('Number of data points returned (fewer than limit when no more exist).'),
    results: z.array(Datum).describe('Newest first.'),
  }),
  annotations: readOnly,
  concise: (output) => conciseData(output),
  conciseOutput: ConciseData,
  async handler(ctx, input) {
    const [companyId] = await visibleCompanyIds(ctx, [input.company_id]);
    const selection = await CategoryIndex.select(
      ctx,
      input.category ? [input.category] : undefined,
      'category',
    );
    const preferred = ctx.principal.firm.preferred_currency;
    const rows = await ctx.repos.metrics.recent(
      ctx.principal.scope,
      { companyIds: [companyId!], categoryIds: selection.ids },
      input.limit,
      preferred,
    );
    return {
      company_id: companyId!,
      category: input.category ?? null,
      limit: input.limit,
      count: rows.length,
      results: rows.map((row) => toDatum(row, preferred)),
    };
  },
});
