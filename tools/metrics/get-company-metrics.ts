import { z } from 'zod';
import { ALL_CADENCES } from '../../core/categories.ts';
import { defineTool, readOnly } from '../define.ts';
import { InvalidInput } from '../errors.ts';
import { isoDateField } from '../schemas/dates.ts';
import { ConciseData, conciseData, Datum, toDatum } from '../schemas/datum.ts';
import { listOf, MAX_PER_PAGE, pageFields, pageResult, toPage } from '../schemas/page.ts';
import { CategoryIndex, checkCadenceFits, visibleCompanyIds } from './filters.ts';

export const getCompanyMetrics = defineTool({
  name: 'get_company_metrics',
  title: 'Get company metrics',
  description:
    "Metric data points (revenue, ARR, cash, headcount, custom metrics …) of one or more companies, oldest first, also converted into the firm's currency. Categories: get_metrics_options; latest values only: get_company_recent_metrics.",
  input: z.object({
    company_ids: z
      .array(z.string().min(1))
      .min(1)
      .max(MAX_PER_PAGE)
      .describe('Company ids (from list_companies or search_companies); at least one.'),
    from_date: isoDateField('Only data dated on or after this date (inclusive).'),
    to_date: isoDateField('Only data dated on or before this date (inclusive).'),
    category: z
      .string()
      .min(1)
      .optional()
      .describe(
        'One category: a standard name such as revenue or cash_in_bank, custom for every custom metric, ' +
          'or a custom metric display name (see get_metrics_options).',
      ),
    cadence: z
      .enum(ALL_CADENCES)
      .optional()
      .describe(
        'point_in_time for stocks (cash, ARR, headcount); month, quarter or year for flows (revenue, burn).',
      ),
    include_budgets: z
      .boolean()
      .default(false)
      .describe('True adds budget metrics to the actuals. Default false.'),
    page: pageFields.page,
  }),
  output: listOf(Datum.extend({ company_name: z.string() })),
  annotations: readOnly,
  concise: (output) => conciseData(output),
  conciseOutput: ConciseData,
  async handler(ctx, input) {
    if (input.from_date && input.to_date && input.from_date > input.to_date) {
      throw InvalidInput.field('from_date', `must not be after to_date (${input.to_date})`);
    }
    const companyIds = await visibleCompanyIds(ctx, input.company_ids);
    const selection = await CategoryIndex.select(
      ctx,
      input.category ? [input.category] : undefined,
      'category',
    );
    checkCadenceFits(input.cadence, selection.named, 'cadence');
    const paging = { page: input.page, per_page: MAX_PER_PAGE };
    const preferred = ctx.principal.firm.preferred_currency;
    const counted = await ctx.repos.metrics.list(
      ctx.principal.scope,
      {
        companyIds,
        categoryIds: selection.ids,
        from: input.from_date,
        to: input.to_date,
        includeBudgets: input.include_budgets,
        cadence: input.cadence,
      },
      'date',
      toPage(paging),
      preferred,
    );
    const names = await ctx.repos.companies.names(ctx.principal.scope, [
      ...new Set(counted.rows.map((r) => r.company_id)),
    ]);
    return pageResult(paging, counted, (row) => ({
      ...toDatum(row, preferred),
      company_name: names.get(row.company_id)?.name ?? '',
    }));
  },
});
