import { z } from 'zod';
import { fiscalPeriodEnds } from '../../core/fiscal.ts';
import { defineTool, readOnly, restPaging } from '../define.ts';
import { InvalidInput, MissingParameter } from '../errors.ts';
import { companyRefFields, resolveCompany } from '../schemas/company-ref.ts';
import { isoDateField } from '../schemas/dates.ts';
import { Datum, toDatum } from '../schemas/datum.ts';
import { listOf, pageFields, pageResult, toPage } from '../schemas/page.ts';
import { sortByField, sortDirection } from '../schemas/sort-by.ts';
import { CategoryIndex, checkCadenceFits } from './filters.ts';
import { instantBound, instantField } from './instants.ts';

export const REST_CADENCES = ['point_in_time', 'month', 'quarter', 'year'] as const;

export const listMetrics = defineTool({
  name: 'list_metrics',
  title: 'List a company metrics (REST)',
  description:
    'Lists the metric data of one company with every filter of GET /v1/metrics/, ordered by date, then ' +
    'category name (or by created_at with sort_by). Serves the REST route; MCP clients use ' +
    'get_company_metrics or get_company_recent_metrics.',
  input: z.object({
    ...pageFields,
    ...companyRefFields('metrics'),
    from: isoDateField('Only data dated on or after this date (inclusive).'),
    to: isoDateField('Only data dated on or before this date (inclusive).'),
    category: z
      .array(z.string().min(1))
      .optional()
      .describe(
        'Only these categories (repeatable): standard names such as revenue, custom for every custom ' +
          'metric, or a custom metric display name.',
      ),
    budget_id: z.string().min(1).optional().describe("Only this budget's metrics (ids from list_budgets)."),
    include_budgets: z
      .enum(['1'])
      .optional()
      .describe('1 adds budget metrics; they are left out by default.'),
    include_deleted: z.enum(['1']).optional().describe('1 includes deleted metrics; left out by default.'),
    include_archived: z
      .enum(['0', '1'])
      .default('1')
      .describe('0 leaves archived metrics out; by default (1) they are included.'),
    include_non_fye_aligned: z
      .boolean()
      .default(false)
      .describe(
        "true also lists data dated off the company's fiscal calendar (a quarter not ending three, six, " +
          'nine or twelve months after the fiscal year end, a year not ending at it, a month not ending ' +
          'on its last day); left out by default.',
      ),
    cadence: z
      .enum(REST_CADENCES)
      .optional()
      .describe(
        'point_in_time for stocks; month, quarter or year for flows. Must fit the categories asked for.',
      ),
    custom_metric: z
      .string()
      .min(1)
      .optional()
      .describe('Only this custom metric, by display name (the category filter is preferred).'),
    updated_at_from: instantField('from', 'Only data updated at or after this instant (inclusive).'),
    updated_at_to: instantField('to', 'Only data updated at or before this instant (inclusive).'),
    sort_by: sortByField,
  }),
  output: listOf(Datum),
  annotations: readOnly,
  mcp: false,
  routes: [
    {
      method: 'GET',
      path: '/v1/metrics/',
      summary: 'List the metrics of a company',
      rename: restPaging,
      envelope: 'page',
    },
  ],
  async handler(ctx, input) {
    if (!input.company_id && !input.company_slug) {
      throw new MissingParameter('missing company_id or company_slug: give one of them', [
        { field: 'company_id', message: 'is required unless company_slug is given' },
        { field: 'company_slug', message: 'is required unless company_id is given' },
      ]);
    }
    if (input.from && input.to && input.from > input.to) {
      throw InvalidInput.field('from', `must not be after to (${input.to})`);
    }
    const updatedFrom = input.updated_at_from ? instantBound(input.updated_at_from, 'from')! : undefined;
    const updatedTo = input.updated_at_to ? instantBound(input.updated_at_to, 'to')! : undefined;
    if (updatedFrom && updatedTo && updatedFrom > updatedTo) {
      throw InvalidInput.field('updated_at_from', `must not be after updated_at_to (${input.updated_at_to})`);
    }
    const company = (await resolveCompany(ctx, input))!;

    // The category table is read only when a filter names categories: the common page needs none.
    let ids: string[] | undefined;
    if (input.category?.length || input.custom_metric) {
      const categories = await CategoryIndex.load(ctx);
      const selection = categories.selectCategories(input.category, 'category');
      ids = selection.ids;
      if (input.custom_metric) {
        const custom = categories.customMetric(input.custom_metric, 'custom_metric');
        ids = ids ? ids.filter((id) => id === custom.id) : [custom.id];
        checkCadenceFits(input.cadence, [custom], 'cadence');
      }
      checkCadenceFits(input.cadence, selection.named, 'cadence');
    }

    const preferred = ctx.principal.firm.preferred_currency;
    const direction = sortDirection(input.sort_by);
    const counted = await ctx.repos.metrics.list(
      ctx.principal.scope,
      {
        companyIds: [company.id],
        categoryIds: ids,
        from: input.from,
        to: input.to,
        budgetId: input.budget_id,
        includeBudgets: input.include_budgets === '1',
        includeDeleted: input.include_deleted === '1',
        includeArchived: input.include_archived === '1',
        cadence: input.cadence,
        updatedFrom,
        updatedTo,
        periodEnds: input.include_non_fye_aligned ? undefined : fiscalPeriodEnds(company.fiscal_year_end),
      },
      direction === 'asc' ? 'created_asc' : direction === 'desc' ? 'created_desc' : 'date',
      toPage(input),
      preferred,
    );
    return pageResult(input, counted, (row) => toDatum(row, preferred));
  },
});
