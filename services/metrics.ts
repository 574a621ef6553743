import {
  ALL_CADENCES,
  CUSTOM_CATEGORY,
  isMonetary,
  isNumericKind,
  normaliseCategoryName,
} from '../core/categories.ts';
import { endOfMonth } from '../core/clock.ts';
import { decimalDigitsProblem, isDecimal } from '../core/decimal.ts';
import {
  companyNotFound,
  type FieldError,
  InvalidInput,
  MissingParameter,
  NotFound,
  ToolError,
  throwIfUnknownCompany,
} from '../core/errors.ts';
import type { ConflictMode, DatumTarget, UpdatedDatum, WrittenPoint } from '../db/repos/metric-writes.ts';
import type { CategoryRow } from '../db/repos/metrics.ts';
import { writable } from '../db/repos/writable.ts';
import { CategoryIndex } from './categories.ts';
import { record, type ServiceContext, withRecorder } from './changes.ts';
import { type ChangedDatum, metricEvents } from './metric-events.ts';

/** A point as the caller sent it; null when it was not even an object. */
export type RawPoint = Record<string, unknown> | null;

/** The points of one create_metrics request, with the schema's own errors of each already found. */
export interface MetricsToCreate {
  points: readonly RawPoint[];
  /** Per point, the field errors of its schema (a point with none is valid as to its shape). */
  schemaErrors: readonly FieldError[][];
  onConflict: ConflictMode;
  /** Where the values came from (`api` unless said): an information report names itself. */
  detailedSource?: string;
  /** Per point, where it came from, when points of one request come from different places (cells). */
  sources?: readonly string[];
}

export interface CreatedMetrics {
  companyId: string;
  budgetId: string | null;
  categories: CategoryRow[];
  written: WrittenPoint[];
}

const str = (v: unknown): string | undefined => (typeof v === 'string' && v !== '' ? v : undefined);

/** The problem with a value for its category, if any. */
export function valueProblem(
  value: string,
  category: Pick<CategoryRow, 'category_type' | 'choices'>,
  label: string,
) {
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

interface Request {
  companyId: string;
  budgetId: string | null;
  isBudget: boolean;
  visible: Map<string, unknown>;
  budget: { company_id: string } | undefined;
  index: CategoryIndex;
  latest: string;
  seen: Map<string, number>;
}

/** The company, budget and period rules of one point. */
function checkPlacement(req: Request, raw: Record<string, unknown>, at: string, own: FieldError[]) {
  const itemCompany = str(raw.company_id);
  if (itemCompany && itemCompany !== req.companyId) {
    own.push({
      field: `${at}.company_id`,
      message: `must be ${req.companyId}, the company named first: one company per request`,
    });
  } else if (itemCompany && !req.visible.has(itemCompany)) {
    own.push(companyNotFound(`${at}.company_id`, itemCompany));
  }
  const itemBudget = str(raw.budget_id) ?? null;
  const itemIsBudget = raw.is_budget_metric === true;
  if (itemBudget !== req.budgetId || itemIsBudget !== req.isBudget) {
    own.push({
      field: `${at}.budget_id`,
      message: `every item must have the budget_id and is_budget_metric of items[0] (${req.budgetId ?? 'none'}, ${req.isBudget}): one budget per request`,
    });
  } else if (itemIsBudget && !itemBudget) {
    own.push({ field: `${at}.budget_id`, message: 'is required when is_budget_metric is true' });
  } else if (!itemIsBudget && itemBudget) {
    own.push({ field: `${at}.is_budget_metric`, message: 'must be true when budget_id is given' });
  } else if (itemBudget && (!req.budget || req.budget.company_id !== req.companyId)) {
    own.push({
      field: `${at}.budget_id`,
      message: `no budget with id ${itemBudget} of company ${req.companyId}; call list_budgets for valid ids`,
    });
  }
  const day = str(raw.date);
  if (!itemIsBudget && day && day > req.latest) {
    own.push({
      field: `${at}.date`,
      message: `must be on or before ${req.latest}, the end of the current month: actual data cannot be dated in the future (budget data can)`,
    });
  }
}

/** The category, cadence, value, currency and repetition rules of one point; its category when known. */
function checkCategory(req: Request, raw: Record<string, unknown>, i: number, own: FieldError[]) {
  const at = `items[${i}]`;
  const name = str(raw.category);
  if (!name) return undefined;
  if (normaliseCategoryName(name) === CUSTOM_CATEGORY) {
    own.push({
      field: `${at}.category`,
      message: 'name the custom metric by its display name; get_metrics_options lists them',
    });
    return undefined;
  }
  const found = req.index.lookup(name, `${at}.category`);
  if (!('id' in found)) {
    own.push(found);
    return undefined;
  }
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
  const problem = value ? valueProblem(value, found, label) : undefined;
  if (problem) own.push({ field: `${at}.value`, message: problem });
  const hasCurrency = raw.currency !== undefined && raw.currency !== null;
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
    const earlier = req.seen.get(key);
    if (earlier !== undefined) {
      own.push({
        field: `${at}.date`,
        message: `repeats items[${earlier}]: the same category, cadence, date and budget`,
      });
    } else req.seen.set(key, i);
  }
  return found;
}

/** Every field error of the request, or none; the company, budget and categories need the database. */
async function validate(ctx: ServiceContext, w: MetricsToCreate) {
  const scope = ctx.principal.scope;
  // One company and one budget per request: the first item that names them sets them.
  const companyId = w.points.map((r) => str(r?.company_id)).find((v) => v !== undefined) ?? '';
  const firstBudget = w.points.find((r) => r !== null);
  const budgetId = str(firstBudget?.budget_id) ?? null;
  const req: Request = {
    companyId,
    budgetId,
    isBudget: firstBudget?.is_budget_metric === true,
    visible: companyId ? await ctx.repos.companies.names(scope, [companyId]) : new Map(),
    budget: budgetId ? await ctx.repos.budgets.get(scope, budgetId) : undefined,
    index: await CategoryIndex.load(ctx),
    latest: endOfMonth(ctx.clock.now()),
    seen: new Map(),
  };
  const categories: CategoryRow[] = [];
  const errors: FieldError[] = [];
  w.points.forEach((raw, i) => {
    const own = [...(w.schemaErrors[i] ?? [])];
    if (raw) {
      checkPlacement(req, raw, `items[${i}]`, own);
      const found = checkCategory(req, raw, i, own);
      if (found) categories[i] = found;
    }
    // One message per field is enough: a rule error on a field that already failed adds nothing.
    const fields = new Set<string>();
    for (const e of own) {
      if (fields.has(e.field)) continue;
      fields.add(e.field);
      errors.push(e);
    }
  });
  return { errors, companyId, budgetId, categories };
}

function throwInvalid(errors: FieldError[]): never {
  throwIfUnknownCompany(errors);
  const summary = errors.map((e) => `${e.field}: ${e.message}`).join('; ');
  const allMissing = errors.every((e) => e.message === 'is required');
  throw allMissing
    ? new MissingParameter(`missing ${summary}`, errors)
    : new InvalidInput(`invalid metric data: ${summary}`, errors);
}

function conflictError(conflicts: number[], total: number): ToolError {
  const errors = conflicts.map((i) => ({
    field: `items[${i}]`,
    message:
      'a datum of this company, category, cadence, date and budget exists; on_conflict overwrite ' +
      'replaces it, skip keeps it',
  }));
  const listed = conflicts
    .slice(0, 20)
    .map((i) => `items[${i}]`)
    .join(', ');
  return new ToolError(
    409,
    'conflict',
    `${errors.length} of ${total} points meet existing data: ${listed}${errors.length > 20 ? ', …' : ''}; nothing was written`,
    errors,
  );
}

/**
 * Writes 1 to 10,000 points of one company and one budget, all or none, with their metric history and
 * one event per category and cadence (metric.created for new data, metric.updated for changed values).
 */
export async function createMetrics(ctx: ServiceContext, w: MetricsToCreate): Promise<CreatedMetrics> {
  const { errors, companyId, budgetId, categories } = await validate(ctx, w);
  if (errors.length > 0) throwInvalid(errors);
  const points = w.points.map((raw, i) => ({
    category_id: categories[i]!.id,
    cadence: raw!.metric_cadence as string,
    date: raw!.date as string,
    value: raw!.value as string,
    currency: (raw!.currency as string | null | undefined) ?? null,
    ...(w.sources?.[i] ? { detailed_source: w.sources[i].slice(0, 255) } : {}),
  }));
  return withRecorder(ctx, async (repos, recorder) => {
    const result = await repos.metricWrites.writeMany(ctx.principal.scope, {
      companyId,
      budgetId,
      points,
      mode: w.onConflict,
      userId: ctx.principal.user.id,
      at: recorder.at,
      detailedSource: w.detailedSource,
    });
    if (result.conflicts.length > 0) throw conflictError(result.conflicts, points.length);
    const changed = result.written.flatMap((written, i): ChangedDatum[] => {
      if (written.outcome !== 'created' && written.outcome !== 'overwritten') return [];
      const type = written.outcome === 'created' ? 'metric.created' : 'metric.updated';
      const { cadence, date } = points[i]!;
      return [{ type, companyId, category: categories[i]!, cadence, date, budgetId, ...written }];
    });
    await record(recorder, ...metricEvents(changed));
    return { companyId, budgetId, categories, written: result.written };
  });
}

function datumNotFound(id: string): NotFound {
  return new NotFound(
    `no metric datum with id ${id}; get_company_metrics (GET /v1/metrics/ over REST) lists valid ids`,
  );
}

function changedDatum(
  type: ChangedDatum['type'],
  d: DatumTarget,
  value: string | null,
  currency: string | null,
) {
  const category = {
    id: `${d.category_name}|${d.is_standard}`,
    name: d.category_name,
    is_standard: d.is_standard,
  };
  return {
    type,
    companyId: d.company_id,
    category,
    cadence: d.cadence,
    date: d.date,
    budgetId: d.budget_id,
    id: d.id,
    value,
    currency,
  };
}

export interface MetricChangeInput {
  value?: string;
  currency?: string;
  comments?: string[];
}

/** Changes one datum's value or currency, or appends comments: its history row and a metric.updated event. */
export async function updateMetric(
  ctx: ServiceContext,
  datumId: string,
  change: MetricChangeInput,
  authorName: string,
): Promise<UpdatedDatum> {
  const datum = await writable(ctx.repos).metricWrites.target(ctx.principal.scope, datumId);
  if (!datum) throw datumNotFound(datumId);
  if (change.value !== undefined) {
    const what = datum.is_standard ? datum.category_name : `the custom metric ${datum.category_name}`;
    const label = datum.category_type === 'select' ? datum.category_name : what;
    const problem = valueProblem(change.value, datum, label);
    if (problem) throw InvalidInput.field('value', problem);
  }
  return withRecorder(ctx, async (repos, recorder) => {
    const updated = await repos.metricWrites.update(
      ctx.principal.scope,
      datumId,
      change,
      { userId: ctx.principal.user.id, name: authorName },
      recorder.at,
    );
    // Deleted between the check and the change.
    if (!updated) throw datumNotFound(datumId);
    await record(
      recorder,
      ...metricEvents([changedDatum('metric.updated', datum, updated.value, updated.currency)]),
    );
    return updated;
  });
}

/** Soft-deletes one datum: its history row and a metric.deleted event. */
export async function deleteMetric(ctx: ServiceContext, datumId: string): Promise<void> {
  await withRecorder(ctx, async (repos, recorder) => {
    const datum = await repos.metricWrites.target(ctx.principal.scope, datumId);
    const deleted =
      datum &&
      (await repos.metricWrites.softDelete(ctx.principal.scope, datumId, ctx.principal.user.id, recorder.at));
    if (!datum || !deleted) throw datumNotFound(datumId);
    await record(recorder, ...metricEvents([changedDatum('metric.deleted', datum, null, null)]));
  });
}
