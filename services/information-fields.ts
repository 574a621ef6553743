// The fields of an information request, checked as a whole: what the schema of a tool cannot see
// (dates in order, categories of the firm, a time period that fits each category, companies the
// caller may see). Every problem names its field as the caller spelled it.
import {
  companyNotFound,
  type FieldError,
  InvalidInput,
  MissingParameter,
  throwIfUnknownCompany,
} from '../core/errors.ts';
import { DEFAULT_REMINDER_DAYS, TIME_PERIODS, type TimePeriod } from '../core/information.ts';
import { newId } from '../db/ids.ts';
import type { InformationRequestRow, RequestedItemRow } from '../db/repos/information.ts';
import type { NewRequestedItem } from '../db/repos/information-writes.ts';
import type { CategoryRow } from '../db/repos/metrics.ts';
import { CategoryIndex } from './categories.ts';
import type { ServiceContext } from './changes.ts';

export interface RequestedMetricInput {
  /** A standard category name or a custom metric's display name. */
  category: string;
  time_period?: TimePeriod;
  optional?: boolean;
  description?: string;
}

export interface RequestedDocumentInput {
  name: string;
  description?: string;
  optional?: boolean;
}

/** What a caller gives to create a request, or the fields of a change. */
export interface RequestInput {
  name?: string;
  period?: string;
  period_start_date?: string;
  period_end_date?: string;
  due_date?: string;
  message?: string;
  reminder_days?: number[];
  company_ids?: string[];
  metrics?: RequestedMetricInput[];
  documents?: RequestedDocumentInput[];
}

/** A request's fields once checked: every one present, items ready to store. */
export interface CheckedRequest {
  name: string;
  period: string;
  period_start_date: string;
  period_end_date: string;
  due_date: string;
  message: string;
  reminder_days: number[];
  company_ids: string[];
  metrics: NewRequestedItem[];
  documents: NewRequestedItem[];
}

const DATE = /^\d{4}-\d{2}-\d{2}$/;
const isDate = (s: string) => DATE.test(s) && new Date(`${s}T00:00:00Z`).toISOString().startsWith(s);

/** The period a flow's value covers when the caller does not say: the length of the request's period. */
function periodOfLength(start: string, end: string): TimePeriod | undefined {
  const [sy, sm] = start.split('-').map(Number) as [number, number];
  const [ey, em] = end.split('-').map(Number) as [number, number];
  const months = ey * 12 + em - (sy * 12 + sm) + 1;
  return months === 1 ? 'month' : months === 3 ? 'quarter' : months === 12 ? 'year' : undefined;
}

function text(
  errors: FieldError[],
  field: string,
  value: string | undefined,
  max: number,
  required: boolean,
) {
  if (value === undefined || value.trim() === '') {
    if (required) errors.push({ field, message: 'is required' });
    return;
  }
  if (value.length > max) errors.push({ field, message: `must be at most ${max} characters` });
}

function checkDates(errors: FieldError[], r: RequestInput): void {
  for (const field of ['period_start_date', 'period_end_date', 'due_date'] as const) {
    const value = r[field];
    if (value === undefined) errors.push({ field, message: 'is required' });
    else if (!isDate(value)) errors.push({ field, message: 'must be a date YYYY-MM-DD' });
  }
  if (errors.some((e) => e.field.endsWith('_date'))) return;
  if (r.period_start_date! > r.period_end_date!)
    errors.push({ field: 'period_end_date', message: 'must not be before period_start_date' });
  else if (r.due_date! < r.period_start_date!)
    errors.push({ field: 'due_date', message: 'must not be before period_start_date' });
}

function checkReminders(errors: FieldError[], days: number[] | undefined): number[] {
  if (days === undefined) return [...DEFAULT_REMINDER_DAYS];
  const bad = days.findIndex((d) => !Number.isInteger(d) || d < -90 || d > 90);
  if (bad >= 0)
    errors.push({ field: `reminder_days[${bad}]`, message: 'must be a whole number of days from -90 to 90' });
  return [...new Set(days)].sort((a, b) => a - b);
}

function metricItem(
  errors: FieldError[],
  index: CategoryIndex,
  item: RequestedMetricInput,
  i: number,
  fallback: TimePeriod | undefined,
): (NewRequestedItem & { category: CategoryRow }) | undefined {
  const at = `metrics[${i}]`;
  text(errors, `${at}.description`, item.description, 1000, false);
  const found = index.lookup(item.category ?? '', `${at}.category`);
  if (!('id' in found)) {
    errors.push(found);
    return undefined;
  }
  if (found.is_archived) {
    errors.push({ field: `${at}.category`, message: `the custom metric ${found.name} is archived` });
    return undefined;
  }
  const period = item.time_period ?? (found.is_point_in_time ? 'point_in_time' : fallback);
  if (!period || !(TIME_PERIODS as readonly string[]).includes(period)) {
    const hint = 'the period is not a month, a quarter or a year long';
    errors.push({ field: `${at}.time_period`, message: `is required for ${found.name} (${hint})` });
  } else if (found.is_point_in_time !== (period === 'point_in_time')) {
    const fits = found.is_point_in_time
      ? 'point_in_time (a value at the period end)'
      : 'month, quarter or year';
    errors.push({ field: `${at}.time_period`, message: `must be ${fits} for ${found.name}` });
  }
  const description = item.description?.trim() ?? '';
  const base = { id: newId(), name: found.name, optional: item.optional ?? false, position: i, description };
  return { ...base, category_id: found.id, time_period: period ?? null, category: found };
}

async function checkMetrics(ctx: ServiceContext, errors: FieldError[], r: RequestInput) {
  const metrics = r.metrics ?? [];
  if (metrics.length > 100) errors.push({ field: 'metrics', message: 'must hold at most 100 items' });
  if (metrics.length === 0) return [];
  const index = await CategoryIndex.load(ctx);
  const fallback =
    r.period_start_date && r.period_end_date && isDate(r.period_start_date) && isDate(r.period_end_date)
      ? periodOfLength(r.period_start_date, r.period_end_date)
      : undefined;
  const seen = new Map<string, number>();
  const out: NewRequestedItem[] = [];
  metrics.forEach((item, i) => {
    const checked = metricItem(errors, index, item, i, fallback);
    if (!checked) return;
    const { category, ...row } = checked;
    const key = `${category.id}|${row.time_period}`;
    const earlier = seen.get(key);
    if (earlier !== undefined)
      errors.push({
        field: `metrics[${i}].category`,
        message: `repeats metrics[${earlier}] (same time period)`,
      });
    seen.set(key, i);
    out.push(row);
  });
  return out;
}

function checkDocuments(errors: FieldError[], r: RequestInput): NewRequestedItem[] {
  const documents = r.documents ?? [];
  if (documents.length > 50) errors.push({ field: 'documents', message: 'must hold at most 50 items' });
  return documents.map((d, i) => {
    text(errors, `documents[${i}].name`, d.name, 255, true);
    text(errors, `documents[${i}].description`, d.description, 1000, false);
    return {
      id: newId(),
      name: (d.name ?? '').trim(),
      description: d.description?.trim() ?? '',
      optional: d.optional ?? false,
      position: i,
    };
  });
}

/** The companies, each visible to the caller; one the caller cannot see is a 404 naming it. */
async function checkCompanies(ctx: ServiceContext, errors: FieldError[], ids: string[] | undefined) {
  const unique = [...new Set(ids ?? [])];
  if (unique.length > 1000)
    errors.push({ field: 'company_ids', message: 'must hold at most 1,000 companies' });
  const visible = await ctx.repos.companies.names(ctx.principal.scope, unique);
  (ids ?? []).forEach((id, i) => {
    if (!visible.has(id)) errors.push(companyNotFound(`company_ids[${i}]`, id));
  });
  return unique;
}

/** Checks a whole request; throws one error naming every bad field. */
export async function checkRequest(ctx: ServiceContext, r: RequestInput): Promise<CheckedRequest> {
  const errors: FieldError[] = [];
  text(errors, 'name', r.name, 255, true);
  text(errors, 'period', r.period, 64, true);
  text(errors, 'message', r.message, 5000, false);
  checkDates(errors, r);
  const reminder_days = checkReminders(errors, r.reminder_days);
  const company_ids = await checkCompanies(ctx, errors, r.company_ids);
  const metrics = await checkMetrics(ctx, errors, r);
  const documents = checkDocuments(errors, r);
  throwIfUnknownCompany(errors);
  if (errors.length > 0) {
    const summary = errors.map((e) => `${e.field}: ${e.message}`).join('; ');
    if (errors.every((e) => e.message === 'is required'))
      throw new MissingParameter(`missing ${summary}`, errors);
    throw new InvalidInput(`invalid information request: ${summary}`, errors);
  }
  return {
    name: r.name!.trim(),
    period: r.period!.trim(),
    period_start_date: r.period_start_date!,
    period_end_date: r.period_end_date!,
    due_date: r.due_date!,
    message: r.message ?? '',
    reminder_days,
    company_ids,
    metrics,
    documents,
  };
}

/** The fields of a stored request as input, to be merged with a change or copied into a new request. */
export function storedInput(
  row: InformationRequestRow,
  companyIds: string[],
  documents: RequestedItemRow[],
  metrics: RequestedItemRow[],
  reminderDays: number[],
): RequestInput {
  return {
    name: row.name,
    period: row.period,
    period_start_date: row.period_start_date,
    period_end_date: row.period_end_date,
    due_date: row.due_date,
    message: row.message ?? '',
    reminder_days: reminderDays,
    company_ids: companyIds,
    documents: documents.map((d) => ({ name: d.name, description: d.description, optional: d.optional })),
    metrics: metrics.map((m) => ({
      category: m.name,
      time_period: (m.time_period ?? undefined) as TimePeriod | undefined,
      optional: m.optional,
      description: m.description,
    })),
  };
}
