import { z } from 'zod';
import { CUSTOM_CATEGORY, isMonetary } from '../../core/categories.ts';
import { convertDecimal, isDecimal } from '../../core/decimal.ts';
import type { DatumWithRate } from '../../db/repos/metrics.ts';

export const Datum = z.object({
  id: z.string().describe('Datum identifier.'),
  company_id: z.string(),
  category: z
    .string()
    .describe('Standard category name (for example revenue), or custom for a custom metric.'),
  category_id: z.string(),
  category_type: z
    .string()
    .describe(
      'Value kind: currency, percentage (a fraction, 0.25 = 25 %), number, multiple, months, text, select.',
    ),
  custom_metric: z
    .string()
    .nullable()
    .describe('Display name of the custom metric; null for standard categories.'),
  cadence: z.string().describe('point_in_time, or the period a flow covers: month, quarter, year.'),
  date: z.string().describe('Date the value is for, YYYY-MM-DD (the period end for flows).'),
  value: z.string().describe('The value as an exact decimal string (or text for text and select metrics).'),
  currency: z.string().nullable().describe('Currency of value; null for values that are not money.'),
  converted_value: z
    .string()
    .nullable()
    .describe(
      "value in the firm's preferred currency; the value itself when it is not money (fx_rate null); " +
        'null only for money whose rate is unknown (never guessed).',
    ),
  preferred_currency: z.string().describe("The firm's preferred currency."),
  fx_rate: z
    .number()
    .nullable()
    .describe('Rate used: the latest on or before date; 1 in the preferred currency; null when unknown.'),
  budget_id: z.string().nullable().describe('Budget of a budget metric; null for actuals.'),
  is_budget_metric: z.boolean(),
  detailed_source: z.string(),
  archived: z.boolean(),
  created_at: z.string(),
  updated_at: z.string(),
  deleted_at: z.string().nullable().describe('When the datum was deleted; null unless deleted.'),
});
export type Datum = z.infer<typeof Datum>;

export function toDatum(row: DatumWithRate, preferredCurrency: string): Datum {
  const money = isMonetary(row.category_type);
  const convertible = money && row.fx_rate !== null && isDecimal(row.value);
  // Headcount, percentages, multiples, text …: no currency to convert from, so the value converts to itself.
  let converted: string | null = money ? null : row.value;
  if (convertible) converted = row.fx_rate === '1' ? row.value : convertDecimal(row.value, row.fx_rate!);
  return {
    id: row.id,
    company_id: row.company_id,
    category: row.is_standard ? row.category_name : CUSTOM_CATEGORY,
    category_id: row.category_id,
    category_type: row.category_type,
    custom_metric: row.is_standard ? null : row.category_name,
    cadence: row.cadence,
    date: row.date,
    value: row.value,
    currency: row.currency,
    converted_value: converted,
    preferred_currency: preferredCurrency,
    fx_rate: convertible ? Number(row.fx_rate) : null,
    budget_id: row.budget_id,
    is_budget_metric: row.budget_id !== null,
    detailed_source: row.detailed_source,
    archived: row.archived,
    created_at: row.created_at,
    updated_at: row.updated_at,
    deleted_at: row.deleted_at,
  };
}

/** What a series' rows hold, in order; `converted_value` only where it can differ from `value`. */
const SERIES_COLUMNS = ['date', 'value', 'converted_value'] as const;

/** Data points of one company, category, cadence, currency and budget: the concise form of metric data. */
export const DatumSeries = z.object({
  company_id: z.string(),
  company_name: z.string().optional(),
  category: z.string(),
  custom_metric: z.string().optional(),
  category_type: z.string(),
  cadence: z.string(),
  currency: z.string().nullable(),
  budget_id: z.string().optional(),
  columns: z.array(z.enum(SERIES_COLUMNS)),
  rows: z.array(z.array(z.string().nullable())),
});
export type DatumSeries = z.infer<typeof DatumSeries>;

/**
 * Groups data points into series, oldest first as given, each with its constants stated once: rows of
 * [date, value, converted_value], or [date, value] where the value needs no conversion (not money, or
 * already in the firm's currency).
 */
export function toSeries(
  data: readonly (Datum & { company_name?: string })[],
  preferredCurrency: string,
): DatumSeries[] {
  const series = new Map<string, DatumSeries>();
  for (const d of data) {
    const key = JSON.stringify([
      d.company_id,
      d.category,
      d.custom_metric,
      d.cadence,
      d.currency,
      d.budget_id,
    ]);
    let found = series.get(key);
    if (!found) {
      const converts = d.currency !== null && d.currency !== preferredCurrency;
      found = {
        company_id: d.company_id,
        ...(d.company_name !== undefined && { company_name: d.company_name }),
        category: d.category,
        ...(d.custom_metric !== null && { custom_metric: d.custom_metric }),
        category_type: d.category_type,
        cadence: d.cadence,
        currency: d.currency,
        ...(d.budget_id !== null && { budget_id: d.budget_id }),
        columns: converts ? [...SERIES_COLUMNS] : ['date', 'value'],
        rows: [],
      };
      series.set(key, found);
    }
    found.rows.push(found.columns.length === 3 ? [d.date, d.value, d.converted_value] : [d.date, d.value]);
  }
  return [...series.values()];
}

/** The concise form of a list of data points: paging, the firm's currency once, then the series. */
export const ConciseData = z.object({
  preferred_currency: z.string(),
  series: z.array(DatumSeries),
});

export function conciseData<T extends { results: Datum[] }>(
  output: T,
): Omit<T, 'results'> & Partial<z.infer<typeof ConciseData>> & { series: DatumSeries[] } {
  const { results, ...rest } = output;
  const preferred = results[0]?.preferred_currency;
  if (preferred === undefined) return { ...rest, series: [] };
  return { ...rest, preferred_currency: preferred, series: toSeries(results, preferred) };
}
