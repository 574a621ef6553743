import { z } from 'zod';
import { ALL_CADENCES } from '../../core/categories.ts';
import { fiscalPeriodEnds } from '../../core/fiscal.ts';
import type { CompanyRow } from '../../db/repos/companies.ts';
import type { ToolContext } from '../context.ts';
import { defineTool, readOnly, restPaging } from '../define.ts';
import { InvalidInput, MissingParameter } from '../errors.ts';
import { resolveCompany } from '../schemas/company-ref.ts';
import { ConciseData, conciseData, Datum, toDatum } from '../schemas/datum.ts';
import { listOf, MAX_PER_PAGE, pageFields, pageResult, toPage } from '../schemas/page.ts';
import { sortByField, sortDirection } from '../schemas/sort-by.ts';
import { CategoryIndex, checkCadenceFits, visibleCompanyIds } from './filters.ts';
import { instantBound, instantField } from './instants.ts';

const nonEmpty = z.string().min(1);

/** What GET /v1/metrics/ takes of these (the v1 spec's values and defaults); MCP takes more. */
const V1_NARROWER = {
  include_budgets: z
    .enum(['1'])
    .optional()
    .transform((flag) => flag === '1')
    .describe('1 adds budget metrics; they are left out by default.'),
  // Repeatable here; one category over MCP.
  category: z
    .array(nonEmpty)
    .optional()
    .describe('Only these categories (repeatable): standard names, custom, or custom metric display names.'),
  include_deleted: z
    .enum(['1'])
    .optional()
    .transform((flag) => flag === '1')
    .describe('1 includes deleted metrics; left out by default.'),
  include_archived: z
    .enum(['0', '1'])
    .default('1')
    .transform((flag) => flag === '1')
    .describe('0 leaves archived metrics out; by default (1) they are included.'),
  include_non_fye_aligned: z
    .boolean()
    .default(false)
    .describe("true also lists data dated off the company's fiscal calendar; left out by default."),
  cadence: z
    .enum(['point_in_time', 'month', 'quarter', 'year'])
    .optional()
    .describe(
      'point_in_time for stocks; month, quarter or year for flows. Must fit the categories asked for.',
    ),
};

// In the order of the v1 parameters, so that a REST answer naming several of them names them as before.
// Short descriptions: the names say most, and every MCP session is sent them (test/tools-list-size).
const input = z.object({
  company_ids: z.array(nonEmpty).min(1).max(MAX_PER_PAGE).optional().describe('Ids (list_companies).'),
  ...pageFields,
  company_id: nonEmpty.optional().describe('One id.'),
  company_slug: nonEmpty.optional().describe('Slug.'),
  from_date: z.iso.date().optional().describe('Inclusive.'),
  to_date: z.iso.date().optional().describe('Inclusive.'),
  category: nonEmpty.optional().describe('A category (get_metrics_options).'),
  budget_id: nonEmpty.optional().describe('Budget.'),
  include_budgets: z.boolean().default(false).describe('Add budgets.'),
  include_deleted: z.boolean().optional().describe('Add deleted.'),
  include_archived: z.boolean().default(true).describe('False: no archived.'),
  include_non_fye_aligned: z.boolean().optional().describe('False: fiscal periods only.'),
  cadence: z.enum(ALL_CADENCES).optional().describe('point_in_time: stocks.'),
  custom_metric: nonEmpty.optional().describe('Name.'),
  updated_at_from: instantField('from', 'ISO 8601.', false),
  updated_at_to: instantField('to', 'ISO 8601.', false),
  sort_by: sortByField.describe('-created_at or created_at.'),
});

type Input = z.output<typeof input>;

export const getCompanyMetrics = defineTool({
  name: 'get_company_metrics',
  title: 'Get company metrics',
  description:
    "Metric data points of companies, oldest first, also in the firm's currency; latest: get_company_recent_metrics.",
  input,
  output: listOf(Datum.extend({ company_name: z.string().optional() })),
  annotations: readOnly,
  concise: (output) => conciseData(output),
  conciseOutput: ConciseData,
  routes: [
    {
      method: 'GET',
      path: '/v1/metrics/',
      summary: 'List the metrics of a company',
      rename: { ...restPaging, from: 'from_date', to: 'to_date' },
      envelope: 'page',
      narrower: V1_NARROWER,
    },
  ],
  async handler(ctx, input, call) {
    // GET /v1/metrics/ lists one company (company_ids is MCP's) and names its errors as the v1 spec does.
    const v1 = call?.route !== undefined;
    const updated = checkInput(input, v1);
    const { ids: companyIds, one } = await companiesOf(ctx, input, v1);
    if (input.include_non_fye_aligned === false && !one) {
      throw InvalidInput.field(
        'include_non_fye_aligned',
        'false needs one company: company_id or company_slug',
      );
    }
    const categoryIds = await categoryFilter(ctx, input);
    const preferred = ctx.principal.firm.preferred_currency;
    const direction = sortDirection(input.sort_by);
    const counted = await ctx.repos.metrics.list(
      ctx.principal.scope,
      {
        companyIds,
        categoryIds,
        from: input.from_date,
        to: input.to_date,
        budgetId: input.budget_id,
        includeBudgets: input.include_budgets,
        includeDeleted: input.include_deleted === true,
        includeArchived: input.include_archived,
        cadence: input.cadence,
        ...updated,
        periodEnds:
          input.include_non_fye_aligned === false ? fiscalPeriodEnds(one!.fiscal_year_end) : undefined,
      },
      direction === 'asc' ? 'created_asc' : direction === 'desc' ? 'created_desc' : 'date',
      toPage(input),
      preferred,
    );
    // One company's rows need not name it; a list of companies' rows do.
    if (one) return pageResult(input, counted, (row) => toDatum(row, preferred));
    const names = await ctx.repos.companies.names(ctx.principal.scope, [
      ...new Set(counted.rows.map((r) => r.company_id)),
    ]);
    return pageResult(input, counted, (row) => ({
      ...toDatum(row, preferred),
      company_name: names.get(row.company_id)?.name ?? '',
    }));
  },
});

/** The checks that need no database, in the order each transport has always made them; the updated_at bounds. */
function checkInput(input: Input, v1: boolean): { updatedFrom?: string; updatedTo?: string } {
  const listed = !v1 && input.company_ids !== undefined;
  if (!listed && !input.company_id && !input.company_slug) {
    if (!v1) {
      throw new MissingParameter('missing company_ids: is required', [
        { field: 'company_ids', message: 'is required' },
      ]);
    }
    throw new MissingParameter('missing company_id or company_slug: give one of them', [
      { field: 'company_id', message: 'is required unless company_slug is given' },
      { field: 'company_slug', message: 'is required unless company_id is given' },
    ]);
  }
  if (input.from_date && input.to_date && input.from_date > input.to_date) {
    throw v1
      ? InvalidInput.field('from', `must not be after to (${input.to_date})`)
      : InvalidInput.field('from_date', `must not be after to_date (${input.to_date})`);
  }
  const updatedFrom = input.updated_at_from ? instantBound(input.updated_at_from, 'from')! : undefined;
  const updatedTo = input.updated_at_to ? instantBound(input.updated_at_to, 'to')! : undefined;
  if (updatedFrom && updatedTo && updatedFrom > updatedTo) {
    throw InvalidInput.field('updated_at_from', `must not be after updated_at_to (${input.updated_at_to})`);
  }
  return { updatedFrom, updatedTo };
}

/** The visible companies asked for: a list by id, or one by id or slug. */
async function companiesOf(
  ctx: ToolContext,
  input: Input,
  v1: boolean,
): Promise<{ ids: string[]; one?: CompanyRow }> {
  if (v1 || input.company_id || input.company_slug) {
    if (input.company_ids && !v1) {
      throw InvalidInput.field('company_ids', 'give company_ids, or company_id or company_slug, not both');
    }
    const one = (await resolveCompany(ctx, input))!;
    return { ids: [one.id], one };
  }
  return { ids: await visibleCompanyIds(ctx, input.company_ids!) };
}

/** The category ids of the category and custom_metric filters; the category table is read only for them. */
async function categoryFilter(ctx: ToolContext, input: Input): Promise<string[] | undefined> {
  // GET /v1/metrics/ gives a list (its own form of the field, V1_NARROWER); MCP one name.
  const category: string | readonly string[] | undefined = input.category;
  const asked = typeof category === 'string' ? [category] : category;
  if (!asked?.length && !input.custom_metric) return undefined;
  const categories = await CategoryIndex.load(ctx);
  const selection = categories.selectCategories(asked, 'category');
  let ids = selection.ids;
  if (input.custom_metric) {
    const custom = categories.customMetric(input.custom_metric, 'custom_metric');
    ids = ids ? ids.filter((id) => id === custom.id) : [custom.id];
    checkCadenceFits(input.cadence, [custom], 'cadence');
  }
  checkCadenceFits(input.cadence, selection.named, 'cadence');
  return ids;
}
