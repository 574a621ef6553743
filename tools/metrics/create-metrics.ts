import { z } from 'zod';
import {
  ALL_CADENCES,
  CUSTOM_CATEGORY,
  isMonetary,
  isNumericKind,
  normaliseCategoryName,
} from '../../core/categories.ts';
import { endOfMonth } from '../../core/clock.ts';
import { decimalDigitsProblem, isDecimal } from '../../core/decimal.ts';
import type { CategoryRow } from '../../db/repos/metrics.ts';
import type { ToolContext } from '../context.ts';
import { defineTool } from '../define.ts';
import {
  companyNotFound,
  type FieldError,
  InvalidInput,
  MissingParameter,
  ToolError,
  throwIfUnknownCompany,
} from '../errors.ts';
import { inputError } from '../run.ts';
import { CurrencyCode } from '../schemas/currency.ts';
import { CategoryIndex } from './filters.ts';

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

const str = (v: unknown): string | undefined => (typeof v === 'string' && v !== '' ? v : undefined);

/** The problem with a value for its category, if any. */
function valueProblem(value: string, category: CategoryRow, label: string): string | undefined {
  if (category.category_type === 'select') {
    return category.choices.includes(value)
      ? undefined
      : `must be one of the choices of ${label}: ${category.choices.map((c) => JSON.stringify(c)).join(', ')}`;
  }
  if (isNumericKind(category.category_type) && !(isDecimal(value) && value === value.trim())) {
    return `must be a decimal number such as 1234.56 for ${label} (${category.category_type}); no exponent, spaces or separators`;
  }
  return isNumericKind(category.category_type) ? decimalDigitsProblem(value) : undefined;
}

interface Checked {
  errors: FieldError[];
  companyId: string;
  budgetId: string | null;
  categories: CategoryRow[];
}

/** Every field error of the request, or none; the company, budget and categories need the database. */
async function validate(ctx: ToolContext, items: PointItem[]): Promise<Checked> {
  const scope = ctx.principal.scope;
  const raws = items.map(rawOf);
  const errorsOf: FieldError[][] = items.map(() => []);

  // One company and one budget per request: the first item that names them sets them.
  const companyId = raws.map((r) => str(r?.company_id)).find((v) => v !== undefined) ?? '';
  const firstBudget = raws.find((r) => r !== null);
  const budgetId = str(firstBudget?.budget_id) ?? null;
  const isBudget = firstBudget?.is_budget_metric === true;
  const visible = companyId ? await ctx.repos.companies.names(scope, [companyId]) : new Map();
  const budget = budgetId ? await ctx.repos.budgets.get(scope, budgetId) : undefined;
  const index = await CategoryIndex.load(ctx);
  const latest = endOfMonth(ctx.clock.now());
  const categories: CategoryRow[] = [];
  const seen = new Map<string, number>();

  items.forEach((item, i) => {
    const at = `items[${i}]`;
    const own = errorsOf[i]!;
    const rejected = item[REJECTED];
    if (rejected) {
      const issues = rejected.issues.map((issue) => ({ ...issue, path: ['items', i, ...issue.path] }));
      own.push(...inputError(new z.ZodError(issues)).errors);
    }
    const raw = raws[i];
    if (!raw) return;

    const itemCompany = str(raw.company_id);
    if (itemCompany && itemCompany !== companyId) {
      own.push({
        field: `${at}.company_id`,
        message: `must be ${companyId}, the company named first: one company per request`,
      });
    } else if (itemCompany && !visible.has(itemCompany)) {
      own.push(companyNotFound(`${at}.company_id`, itemCompany));
    }

    const itemBudget = str(raw.budget_id) ?? null;
    const itemIsBudget = raw.is_budget_metric === true;
    if (itemBudget !== budgetId || itemIsBudget !== isBudget) {
      own.push({
        field: `${at}.budget_id`,
        message: `every item must have the budget_id and is_budget_metric of items[0] (${budgetId ?? 'none'}, ${isBudget}): one budget per request`,
      });
    } else if (itemIsBudget && !itemBudget) {
      own.push({ field: `${at}.budget_id`, message: 'is required when is_budget_metric is true' });
    } else if (!itemIsBudget && itemBudget) {
      own.push({ field: `${at}.is_budget_metric`, message: 'must be true when budget_id is given' });
    } else if (itemBudget && (!budget || budget.company_id !== companyId)) {
      own.push({
        field: `${at}.budget_id`,
        message: `no budget with id ${itemBudget} of company ${companyId}; call list_budgets for valid ids`,
      });
    }

    const day = str(raw.date);
    if (!itemIsBudget && day && day > latest) {
      own.push({
        field: `${at}.date`,
        message: `must be on or before ${latest}, the end of the current month: actual data cannot be dated in the future (budget data can)`,
      });
    }

    const name = str(raw.category);
    if (!name) return;
    if (normaliseCategoryName(name) === CUSTOM_CATEGORY) {
      own.push({
        field: `${at}.category`,
        message: 'name the custom metric by its display name; get_metrics_options lists them',
      });
      return;
    }
    const found = index.lookup(name, `${at}.category`);
    if (!('id' in found)) {
      own.push(found);
      return;
    }
    categories[i] = found;
    const label = found.is_standard ? found.name : `the custom metric ${found.name}`;
    const cadence = str(raw.metric_cadence);
    if (cadence && (ALL_CADENCES as readonly string[]).includes(cadence)) {
      if (found.is_point_in_time && cadence !== 'point_in_time') {
        own.push({
          field: `${at}.metric_cadence`,
          message: `must be point_in_time: ${label} is a point-in-time category`,
        });
      } else if (!found.is_point_in_time && cadence === 'point_in_time') {
        own.push({
          field: `${at}.metric_cadence`,
          message: `${label} is a flow over a period: use day, week, month, quarter, half_year or year`,
        });
      }
    }
    const value = typeof raw.value === 'string' ? raw.value : undefined;
    if (value) {
      const problem = valueProblem(value, found, label);
      if (problem) own.push({ field: `${at}.value`, message: problem });
    }
    const currency = raw.currency;
    const hasCurrency = currency !== undefined && currency !== null;
    if (isMonetary(found.category_type) && !hasCurrency) {
      own.push({ field: `${at}.currency`, message: `is required for ${label} (an amount of money)` });
    } else if (!isMonetary(found.category_type) && hasCurrency) {
      own.push({
        field: `${at}.currency`,
        message: `is only for amounts of money; leave it out for ${label} (${found.category_type})`,
      });
    }
    const date = str(raw.date);
    if (cadence && date) {
      const key = `${found.id}|${cadence}|${date}`;
      const earlier = seen.get(key);
      if (earlier !== undefined) {
        own.push({
          field: `${at}.date`,
          message: `repeats items[${earlier}]: the same category, cadence, date and budget`,
        });
      } else seen.set(key, i);
    }
  });

  // One message per field is enough: a rule error on a field that already failed adds nothing.
  const errors: FieldError[] = [];
  for (const own of errorsOf) {
    const fields = new Set<string>();
    for (const e of own) {
      if (fields.has(e.field)) continue;
      fields.add(e.field);
      errors.push(e);
    }
  }
  return { errors, companyId, budgetId, categories };
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
  async handler(ctx, input) {
    const items = input.items as PointItem[];
    const { errors, companyId, budgetId, categories } = await validate(ctx, items);
    if (errors.length > 0) {
      throwIfUnknownCompany(errors);
      const summary = errors.map((e) => `${e.field}: ${e.message}`).join('; ');
      const allMissing = errors.every((e) => e.message === 'is required');
      throw allMissing
        ? new MissingParameter(`missing ${summary}`, errors)
        : new InvalidInput(`invalid metric data: ${summary}`, errors);
    }

    const result = await ctx.repos.metricWrites.writeMany(ctx.principal.scope, {
      companyId,
      budgetId,
      points: items.map((item, i) => ({
        category_id: categories[i]!.id,
        cadence: item.metric_cadence,
        date: item.date,
        value: item.value,
        currency: item.currency ?? null,
      })),
      mode: input.on_conflict,
      userId: ctx.principal.user.id,
      at: ctx.clock.now().toISOString(),
    });
    if (result.conflicts.length > 0) {
      const conflicts = result.conflicts.map((i) => ({
        field: `items[${i}]`,
        message:
          'a datum of this company, category, cadence, date and budget exists; on_conflict overwrite ' +
          'replaces it, skip keeps it',
      }));
      throw new ToolError(
        409,
        'conflict',
        `${conflicts.length} of ${items.length} points meet existing data: ${result.conflicts
          .slice(0, 20)
          .map((i) => `items[${i}]`)
          .join(', ')}${conflicts.length > 20 ? ', …' : ''}; nothing was written`,
        conflicts,
      );
    }

    return {
      results: result.written.map((w, i) => {
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
