import { z } from 'zod';
import { ALL_CADENCES, CUSTOM_CATEGORY } from '../../core/categories.ts';
import { createMetrics as createMetricPoints } from '../../services/metrics.ts';
import { defineTool } from '../define.ts';
import type { FieldError } from '../errors.ts';
import { inputError } from '../run.ts';
import { CurrencyCode } from '../schemas/currency.ts';

export const MAX_POINTS = 10_000;

const MetricPoint = z.object({
  value: z
    .string()
    .min(1)
    .max(255)
    .describe('A decimal such as "1250.50" (percentages as fractions), or a choice of a select metric.'),
  company_id: z.string().min(1).describe('The same company in every item.'),
  category: z.string().min(1).describe('Standard category name (revenue …) or a custom metric display name.'),
  metric_cadence: z.enum(ALL_CADENCES).describe('point_in_time for stocks; the period of a flow.'),
  date: z.iso.date().describe('YYYY-MM-DD; the period end for flows.'),
  currency: CurrencyCode.nullish().describe('Required for money, not allowed otherwise.'),
  is_budget_metric: z.boolean().default(false).describe('true to write into budget_id.'),
  budget_id: z.string().min(1).nullish().describe('The one budget of the request (list_budgets).'),
});
type MetricPoint = z.infer<typeof MetricPoint>;

// A point that fails its schema is kept with its issues and raw value, so that one 400 can name every
// offending field of every point, including the rules that need the database.
const REJECTED = Symbol('rejected point');
interface Rejected {
  issues: z.core.$ZodIssue[];
  raw: unknown;
}
type PointItem = MetricPoint & { [REJECTED]?: Rejected };

const Point = MetricPoint.catch(
  (c) => ({ [REJECTED]: { issues: c.error.issues, raw: c.input } }) as unknown as MetricPoint,
);

const CreatedPoint = z.object({
  id: z.string().describe('Id of the datum written, or of the existing one that was kept (skipped).'),
  outcome: z
    .enum(['created', 'overwritten', 'unchanged', 'skipped'])
    .describe(
      'created: a new datum; overwritten: an existing one now holds this value; unchanged: an existing ' +
        'one already held it; skipped: an existing one was kept (on_conflict skip).',
    ),
  value: z.string().describe('The value the datum holds now.'),
  company_id: z.string(),
  category: z.string().describe('Standard category name, or custom for a custom metric.'),
  custom_metric: z
    .string()
    .nullable()
    .describe('Display name of the custom metric; null for standard categories.'),
  date: z.string().describe('YYYY-MM-DD.'),
  metric_cadence: z.string(),
  currency: z.string().optional().describe('Currency of the value; absent for values that are not money.'),
  is_budget_metric: z.boolean(),
  budget_id: z.string().optional().describe('Budget of a budget metric; absent for actuals.'),
});

const pointsMessage = `must hold 1 to ${MAX_POINTS} metric data points`;

type Raw = Record<string, unknown>;

function rawOf(item: PointItem): Raw | null {
  const rejected = item[REJECTED];
  if (!rejected) return item as unknown as Raw;
  const raw = rejected.raw;
  return raw && typeof raw === 'object' && !Array.isArray(raw) ? (raw as Raw) : null;
}

/** The schema errors of each point, named by its position in the request. */
function schemaErrors(items: PointItem[]): FieldError[][] {
  return items.map((item, i) => {
    const rejected = item[REJECTED];
    if (!rejected) return [];
    const issues = rejected.issues.map((issue) => ({ ...issue, path: ['items', i, ...issue.path] }));
    return inputError(new z.ZodError(issues)).errors;
  });
}

export const createMetrics = defineTool({
  name: 'create_metrics',
  title: 'Create metric data of one company',
  description:
    `Writes 1 to ${MAX_POINTS} metric data points of one company (actuals or one budget), all or none; ` +
    'a 400 names each bad items[i].field. A point with the company, category, cadence, date and budget ' +
    'of an existing one is a conflict, resolved by on_conflict. Recorded in the metric history. Editor ' +
    'or admin role.',
  input: z.object({
    items: z
      .array(Point)
      .min(1, { error: pointsMessage })
      .max(MAX_POINTS, { error: pointsMessage })
      .describe(`1 to ${MAX_POINTS} data points.`),
    on_conflict: z
      .enum(['overwrite', 'skip', 'error'])
      .default('overwrite')
      .describe('overwrite replaces the existing value, skip keeps it, error refuses all (409).'),
  }),
  output: z.object({
    results: z.array(CreatedPoint).describe('One result per point, in request order.'),
  }),
  annotations: { readOnlyHint: false, destructiveHint: true, idempotentHint: false, openWorldHint: false },
  permission: 'edit_metrics',
  write: true,
  routes: [
    {
      method: 'POST',
      path: '/v1/metrics/',
      summary: 'Create metric data of one company',
      body: { field: 'items' },
      envelope: 'results',
      status: 201,
      bodyLimit: '16mb',
    },
  ],
  async handler(ctx, input) {
    const items = input.items as PointItem[];
    const { companyId, budgetId, categories, written } = await createMetricPoints(ctx, {
      points: items.map(rawOf),
      schemaErrors: schemaErrors(items),
      onConflict: input.on_conflict,
    });
    return {
      results: written.map((w, i) => {
        const item = items[i]!;
        const category = categories[i]!;
        return {
          id: w.id,
          outcome: w.outcome,
          value: w.value,
          company_id: companyId,
          category: category.is_standard ? category.name : CUSTOM_CATEGORY,
          custom_metric: category.is_standard ? null : category.name,
          date: item.date,
          metric_cadence: item.metric_cadence,
          ...(w.currency ? { currency: w.currency } : {}),
          is_budget_metric: budgetId !== null,
          ...(budgetId ? { budget_id: budgetId } : {}),
        };
      }),
    };
  },
});
