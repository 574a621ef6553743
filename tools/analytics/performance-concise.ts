// get_company_performance's `categories` filter and its concise form: the values and growth rates a
// model reasons with, without the sources (dates, datum ids) and the definitions paragraph.

import type { ReadContext } from '../../analytics/context.ts';
import { normaliseCategoryName } from '../../core/categories.ts';
import { InvalidInput } from '../errors.ts';

/** The categories asked for, in the tool's order; a name or id the tool does not chart is a 400. */
export async function selectCategories<C extends string>(
  ctx: ReadContext,
  all: readonly C[],
  asked: readonly string[] | undefined,
): Promise<C[]> {
  if (!asked) return [...all];
  const charted = all as readonly string[];
  const names = new Set<string>();
  // Ids are mixed-case (`std_` + base64url): looked up as given, only names are normalised.
  const byId = asked.some((v) => !charted.includes(normaliseCategoryName(v)))
    ? new Map((await ctx.repos.metrics.categories(ctx.principal.firm.id)).map((r) => [r.id, r.name]))
    : new Map<string, string>();
  for (const value of asked) {
    const name = byId.get(value) ?? normaliseCategoryName(value);
    if (!charted.includes(name))
      throw InvalidInput.field(
        'categories',
        `unknown category "${value}"; this tool charts ${all.join(', ')} (names or their category ids)`,
      );
    names.add(name);
  }
  return all.filter((c) => names.has(c));
}

type Json = Record<string, unknown>;
interface FigureLike {
  value: string | null;
  reason: string | null;
  converted?: { value: string | null } | null;
  date?: string | null;
}

const GROWTH = ['mom', 'qoq', 'yoy', 'yoy_month', 'cmgr'] as const;

/** The columns of a concise series' `points` and `periods` rows, stated once at the top. */
const POINT_COLUMNS = ['month', 'value', 'converted_value'];
const PERIOD_COLUMNS = [
  'period',
  'from',
  'to',
  'value',
  'complete',
  'growth',
  'yoy_growth',
  'converted_value',
];

function conciseSeries(s: Json, fiscal: boolean, converts: boolean): Json {
  const latest = s.latest as FigureLike;
  if (s.cadence === null) return { cadence: null, reason: latest.reason };
  const money = converts && s.unit === 'money';
  const nulls: Json = {};
  const points = (s.points as Json[]).map((p) => {
    if (p.reason) nulls[String(p.month)] = p.reason;
    return money ? [p.month, p.value, p.converted_value] : [p.month, p.value];
  });
  const periods = (s.periods as Json[]).map((p) => {
    const months = p.span as { from: string; to: string };
    if (p.reason) nulls[String(p.period)] = p.reason;
    const row = [
      p.period,
      months.from,
      months.to,
      p.value,
      p.complete,
      p.growth,
      p.yoy_growth,
      p.converted_value,
    ];
    return row.filter((_, i) => (fiscal || (i !== 1 && i !== 2)) && (money || i !== 7));
  });
  const growth: Json = {};
  const because: Json = {};
  for (const name of GROWTH) {
    // A stock's yoy is its yoy_month: stated once.
    if (name === 'yoy_month' && s.cadence === 'point_in_time') continue;
    const f = s[name] as FigureLike;
    if (f.value === null) because[name] = f.reason;
    else growth[name] = f.value;
  }
  return {
    unit: s.unit,
    cadence: s.cadence,
    ...(points.length ? { points: points.map((row) => (money ? row : row.filter((_, i) => i !== 2))) } : {}),
    ...(periods.length ? { periods } : {}),
    ...(Object.keys(nulls).length ? { null_because: nulls } : {}),
    latest: [latest.value, latest.date ?? null, ...(money ? [latest.converted?.value ?? null] : [])],
    growth,
    ...(Object.keys(because).length ? { growth_null_because: because } : {}),
  };
}

/**
 * The concise result: no definitions and no sources; each series' points or periods as rows of the
 * columns named once in `columns`, its latest as [value, date, converted_value], growth as plain percents.
 */
export function concisePerformance(result: Json): Json {
  const { definitions: _definitions, series, fx_rates_used, ...rest } = result;
  const out: Json = { ...rest };
  if (Array.isArray(fx_rates_used) && fx_rates_used.length > 0) out.fx_rates_used = fx_rates_used;
  const all = Object.entries(series as Json).filter(([, s]) => s !== undefined) as [string, Json][];
  const rolled = all.some(([, s]) => (s.periods as unknown[]).length > 0);
  const fiscal = result.quarters !== 'calendar';
  const columns = rolled
    ? PERIOD_COLUMNS.filter((c) => fiscal || (c !== 'from' && c !== 'to'))
    : POINT_COLUMNS;
  // Converted values only when they differ from the values: money not in the firm's currency.
  const converts = result.currency !== null && result.currency !== result.firm_currency;
  const last = converts ? columns : columns.filter((c) => c !== 'converted_value');
  out.columns = {
    [rolled ? 'periods' : 'points']: `${last.join(', ')}${converts ? ' (converted_value: money only)' : ''}`,
    latest: converts ? 'value, date, converted_value' : 'value, date',
  };
  out.series = Object.fromEntries(all.map(([name, s]) => [name, conciseSeries(s, fiscal, converts)]));
  return out;
}

interface SummaryFigure extends FigureLike {
  period: { from: string; to: string } | null;
  converted?: { value: string | null; currency: string } | null;
}

/** One figure of the summary: its value and period (and value in the firm's currency), or null and why. */
function summaryFigure(f: SummaryFigure, currency: unknown, firm: Set<string>): Json {
  if (f.value === null) return { value: null, reason: f.reason };
  const when = f.date
    ? { date: f.date }
    : f.period && { period: f.period.from === f.period.to ? f.period.to : `${f.period.from}/${f.period.to}` };
  const converted = f.converted && f.converted.currency !== currency ? f.converted : undefined;
  if (converted) firm.add(converted.currency);
  return { value: f.value, ...when, ...(converted && { converted_value: converted.value }) };
}

/** get_company_financial_summary concisely: no definitions, no sources; each figure its value and period. */
export function conciseSummary(result: Json): Json {
  const out: Json = {};
  const firm = new Set<string>();
  const figure = (f: unknown) => summaryFigure(f as SummaryFigure, result.currency, firm);
  for (const [key, value] of Object.entries(result)) {
    if (key === 'definitions') continue;
    if (key === 'fx_rates_used') {
      if (Array.isArray(value) && value.length > 0) out[key] = value;
    } else if (key === 'latest')
      out[key] = Object.fromEntries(Object.entries(value as Json).map(([k, f]) => [k, figure(f)]));
    else if (typeof value === 'object' && value !== null && 'source' in value) out[key] = figure(value);
    else out[key] = value;
  }
  // The currency of every converted_value: the firm's.
  if (firm.size === 1) out.converted_currency = [...firm][0];
  return out;
}
