import { z } from 'zod';
import * as D from '../../core/decimal.ts';
import { defineTool, readOnly } from '../define.ts';
import { Figure, LatestFigure, Period, Unit } from '../schemas/figure.ts';
import {
  badBase,
  type Chosen,
  chooseSeries,
  companyIdInput,
  conversionOf,
  conversionOutput,
  emptySource,
  figure,
  growth,
  latestFigure,
  latestIn,
  loadCompanyData,
  type Month,
  monthRange,
  monthsInput,
  monthText,
  NO_COMPANY_DATA,
  noDataBetween,
  nullFigure,
  nullLatest,
  type Observation,
  observedText,
  period,
  sourceOf,
  unitOf,
} from './series.ts';

const CATEGORIES = [
  'revenue',
  'arr',
  'net_burn',
  'cash_in_bank',
  'headcount',
  'gross_margin',
  'ebitda',
] as const;
type Category = (typeof CATEGORIES)[number];

const DEFINITIONS =
  'Growth (mom, qoq, yoy) = (latest − base) / base × 100, in percent with 2 decimals, where latest is the ' +
  "series' latest value in the window and base is the value exactly 1, 3 or 12 months before it in the same " +
  'series (no interpolation; the base may lie before the window). A missing, zero or negative base gives ' +
  'null with the reason. cmgr = ((last / first)^(1/n) − 1) × 100, the compound monthly growth rate between ' +
  'the first and the latest value in the window, n months apart. Each series uses one cadence only: ' +
  'point_in_time for stocks, monthly rows for flows, or quarterly (then yearly) rows when a flow has no ' +
  'monthly rows in the window. Months without a value are null points (gaps), never zeros. Deleted and ' +
  'budget data are left out; archived data counts, a current row winning over an archived one.';

const Point = z.object({
  month: z.string().describe('YYYY-MM.'),
  value: z.string().nullable().describe('Decimal string; null for a gap (no data that month).'),
  date: z.string().nullable().describe('Date of the data point used, YYYY-MM-DD.'),
  datum_id: z.string().nullable().describe('Id of the data point used.'),
  reason: z.string().nullable().describe('Why a reported value is null (e.g. no FX rate); null otherwise.'),
});

const Series = z.object({
  category: z.string(),
  unit: Unit,
  currency: z.string().nullable().describe('Currency of the values; null for non-money categories.'),
  cadence: z
    .string()
    .nullable()
    .describe('The one cadence the series is built from; null when there is no data in the window.'),
  points: z
    .array(Point)
    .describe('One point per month (per quarter or year for such a cadence) over the window, oldest first.'),
  latest: LatestFigure.describe('The latest value in the window.'),
  mom: Figure.describe('Month-on-month growth of the latest value, percent.'),
  qoq: Figure.describe('Growth over the value 3 months earlier, percent.'),
  yoy: Figure.describe('Growth over the value 12 months earlier, percent.'),
  cmgr: Figure.describe('Compound monthly growth rate over the window, percent.'),
});

export const getCompanyPerformance = defineTool({
  name: 'get_company_performance',
  title: 'Performance trends of a company',
  description:
    'Monthly series and growth rates of one company for revenue, ARR, net burn, cash in bank, headcount, ' +
    'gross margin and EBITDA over the last `months` months ending at the latest month with data: each ' +
    'series with its latest value, MoM, QoQ and YoY growth and CMGR, computed over all the data (not a ' +
    'page). Every figure states its currency, period and source data points, or is null with the reason. ' +
    'Use it for "how is this company trending"; for TTM totals, runway, burn multiple and rule of 40 use ' +
    'get_company_financial_summary, and for raw data points get_company_metrics.',
  input: z.object({
    company_id: companyIdInput,
    months: monthsInput(
      'Length of the window in months, 1 to 120, ending at the latest month with data. Default 12.',
    ),
  }),
  output: z.object({
    company_id: z.string(),
    company_name: z.string(),
    months: z.number().int().describe('Window length asked for.'),
    window: Period.nullable().describe('The months of the series; null when the company has no such data.'),
    currency: z.string().nullable().describe('The one currency of every money value.'),
    ...conversionOutput,
    definitions: z.string().describe('How growth, CMGR and the series are computed.'),
    series: z.object(
      Object.fromEntries(CATEGORIES.map((c) => [c, Series])) as Record<Category, typeof Series>,
    ),
  }),
  annotations: readOnly,
  async handler(ctx, input) {
    // Growth of a value early in the window needs data up to 12 months before the window starts.
    const data = await loadCompanyData(
      ctx,
      input.company_id,
      CATEGORIES,
      (asOf) => asOf - input.months + 1 - 12,
    );
    const end = data.asOf;
    const start = end === null ? null : end - input.months + 1;
    const series = {} as Record<Category, z.input<typeof Series>>;
    for (const category of CATEGORIES) {
      const unit = unitOf(category);
      const currency = unit === 'money' ? data.currency : null;
      if (end === null || start === null) {
        series[category] = emptySeries(category, unit, currency, NO_COMPANY_DATA);
        continue;
      }
      const chosen = chooseSeries(category, data.byCategory.get(category) ?? [], start, end);
      const latest = latestIn(chosen, start, end);
      if (!latest) {
        series[category] = emptySeries(category, unit, currency, noDataBetween(category, start, end));
        continue;
      }
      series[category] = {
        category,
        unit,
        currency,
        cadence: chosen.cadence,
        points: points(chosen, latest, start, end),
        latest: latestFigure(category, unit, currency, chosen, latest),
        mom: growth(category, chosen, latest, 1, 'month-on-month'),
        qoq: growth(category, chosen, latest, 3, 'quarter-on-quarter'),
        yoy: growth(category, chosen, latest, 12, 'year-on-year'),
        cmgr: cmgr(category, chosen, start, end),
      };
    }
    return {
      company_id: data.companyId,
      company_name: data.companyName,
      months: input.months,
      window: start === null || end === null ? null : period(start, end),
      ...conversionOf(data),
      definitions: DEFINITIONS,
      series,
    };
  },
});

function emptySeries(category: string, unit: Unit, currency: string | null, reason: string) {
  const noGrowth = nullFigure('percent', null, reason, emptySource([category]));
  return {
    category,
    unit,
    currency,
    cadence: null,
    points: [],
    latest: nullLatest(category, unit, currency, reason),
    mom: noGrowth,
    qoq: noGrowth,
    yoy: noGrowth,
    cmgr: noGrowth,
  };
}

/** Every month of the window (every quarter or year, aligned on the latest row, for coarser cadences). */
function points(chosen: Chosen, latest: Observation, start: Month, end: Month) {
  const months =
    chosen.step === 1
      ? monthRange(start, end)
      : monthRange(0, Math.floor((latest.month - start) / chosen.step))
          .map((k) => latest.month - k * chosen.step)
          .reverse();
  return months.map((m) => {
    const o = chosen.byMonth.get(m);
    return {
      month: monthText(m),
      value: o ? observedText(o) : null,
      date: o?.date ?? null,
      datum_id: o?.id ?? null,
      reason: o && !o.value ? o.reason : null,
    };
  });
}

/**
 * ((last / first)^(1/n) − 1) × 100 between the first and latest values of the window. A fractional power
 * has no exact decimal form, so this one figure goes through Number and is rounded to 2 decimals.
 */
function cmgr(category: string, chosen: Chosen, start: Month, end: Month) {
  const inWindow = [...chosen.byMonth.values()].filter((o) => o.month >= start && o.month <= end);
  inWindow.sort((a, b) => a.month - b.month);
  const first = inWindow[0];
  const last = inWindow[inWindow.length - 1];
  if (!first || !last || first === last) {
    return nullFigure(
      'percent',
      null,
      `CMGR needs two ${category} values at least one month apart in the window`,
      sourceOf([category], chosen.cadence, inWindow),
    );
  }
  const when = period(first.month, last.month);
  const source = sourceOf([category], chosen.cadence, [first, last]);
  if (!first.value || !last.value) {
    return nullFigure('percent', null, (first.value ? last : first).reason ?? 'value missing', source, when);
  }
  const bad = badBase(first.value, `${category} ${monthText(first.month)}`);
  if (bad) return nullFigure('percent', null, bad, source, when);
  if (D.sign(last.value) < 0) {
    return nullFigure(
      'percent',
      null,
      `latest value is negative (${D.toText(last.value)}); a compound rate needs a non-negative end value`,
      source,
      when,
    );
  }
  const n = last.month - first.month;
  const ratio = D.toNumber(D.div(last.value, first.value, 12));
  const rate = (ratio ** (1 / n) - 1) * 100;
  return figure(D.readDecimal(rate.toFixed(2)), 'percent', null, when, source);
}
