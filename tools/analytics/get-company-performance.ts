import { z } from 'zod';
import { Figure, LatestFigure, Period, Unit } from '../../analytics/figure.ts';
import {
  badBase,
  emptySource,
  figure,
  growth,
  latestFigure,
  nullFigure,
  nullLatest,
  observedText,
  percentChange,
  sourceOf,
  ttmGrowth,
} from '../../analytics/figures.ts';
import {
  fiscalYearStart,
  marginRollUp,
  PERIOD_MONTHS,
  type PeriodUnit,
  periodStart,
  periodsText,
  type Rolled,
  rollUp,
  type YearStart,
} from '../../analytics/periods.ts';
import {
  type Chosen,
  chooseSeries,
  convertAmount,
  isStock,
  latestIn,
  loadCompanyData,
  type Month,
  monthRange,
  monthText,
  NO_COMPANY_DATA,
  noDataBetween,
  type Observation,
  period,
  unitOf,
  withConverted,
} from '../../analytics/series.ts';
import * as D from '../../core/decimal.ts';
import { defineTool, readOnly } from '../define.ts';
import {
  companyIdInput,
  conversionOf,
  conversionOutput,
  monthsInput,
  periodInput,
} from '../schemas/analytics.ts';
import { VIEWS } from '../views.ts';
import { concisePerformance, selectCategories } from './performance-concise.ts';

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
  "Growth (mom, qoq, yoy_month) = (latest − base) / base × 100, where latest is the series' latest value in " +
  'the window and base is the value exactly 1, 3 or 12 months before it in the same series (no interpolation; ' +
  'the base may lie before the window). yoy of a flow (revenue, net burn, EBITDA) = (TTM − previous TTM) / ' +
  'previous TTM × 100, the 12 months ending at the latest value over the 12 months before them; yoy of a stock ' +
  '(ARR, cash, headcount, gross margin) equals yoy_month. cmgr = ((latest / base)^(1/months) − 1) × 100 with ' +
  'base the value `months` months before the latest: a window of `months` months spans `months` monthly ' +
  'intervals. A missing, zero or negative base gives null with the reason. Every percentage, growth or stored ' +
  '(gross_margin 0.25 reads 25.00), is in percent with 2 decimals (12.50 = 12.5 %). Each series uses one ' +
  'cadence only: point_in_time for stocks, monthly rows for flows, or quarterly (then yearly) rows when a flow ' +
  'has no monthly rows in the window. Months without a value are null points (gaps), never zeros. Deleted and ' +
  'budget data are left out; archived data counts, a current row winning over an archived one.';

const Point = z.object({
  month: z.string().describe('YYYY-MM.'),
  value: z.string().nullable().describe('Decimal string; null for a gap (no data that month).'),
  date: z.string().nullable().describe('Date of the data point used, YYYY-MM-DD.'),
  datum_id: z.string().nullable().describe('Id of the data point used.'),
  reason: z.string().nullable().describe('Why a reported value is null (e.g. no FX rate); null otherwise.'),
  converted_value: z
    .string()
    .nullable()
    .describe(
      "Money: value in the firm's currency at the latest rate on or before the month's end; else null.",
    ),
});

const PeriodPoint = z.object({
  period: z.string().describe('YYYY-Qn or YYYY; fiscal: FYyyyy-Qn or FYyyyy, the year it ends in.'),
  span: Period.describe('The first and last month the period covers.'),
  value: z.string().nullable(),
  complete: z
    .boolean()
    .describe(
      'False for a period with fewer months of data than it has (flows, margin) or no value at its end (stocks).',
    ),
  growth: z.string().nullable().describe('Percent over the previous period; null unless both are complete.'),
  yoy_growth: z
    .string()
    .nullable()
    .describe('Percent over the same period a year earlier; null unless both are complete.'),
  converted_value: z.string().nullable().describe("Money: value in the firm's currency; else null."),
  reason: z.string().nullable(),
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
    .describe(
      'period month: one point per month (per quarter or year for such a cadence) over the window, oldest first; else empty.',
    ),
  periods: z
    .array(PeriodPoint)
    .describe('period quarter or year: one point per period, oldest first; else empty.'),
  latest: LatestFigure.describe('The latest value in the window.'),
  mom: Figure.describe('Month-on-month growth of the latest value, percent.'),
  qoq: Figure.describe('Growth over the value 3 months earlier, percent.'),
  yoy: Figure.describe(
    'Year-on-year growth, percent: TTM over the previous TTM for a flow; as yoy_month for a stock.',
  ),
  yoy_month: Figure.describe('Growth of the latest value over the value 12 months earlier, percent.'),
  cmgr: Figure.describe(
    'Compound monthly growth rate over the `months` intervals ending at the latest value, percent.',
  ),
});

export const getCompanyPerformance = defineTool({
  name: 'get_company_performance',
  title: 'Performance trends of a company',
  description:
    'Series of one company (revenue, ARR, net burn, cash, headcount, gross margin, EBITDA) over the last `months` months with data: latest, MoM, QoQ, YoY (a flow: TTM over prior TTM) and CMGR, in percent; gaps are null. detailed adds sources and definitions. TTM, runway: get_company_financial_summary.',
  input: z.object({
    company_id: companyIdInput,
    months: monthsInput('Window in months, ending at the latest month with data.'),
    period: periodInput('quarter/year: `periods`, flows summed, stocks at period end.'),
    fiscal: z.boolean().default(false).describe('Fiscal quarters/years.'),
    categories: z.array(z.string().min(1)).min(1).optional().describe('Only these (names or ids).'),
  }),
  output: z.object({
    company_id: z.string(),
    company_name: z.string(),
    months: z.number().int().describe('Window length asked for.'),
    window: Period.nullable().describe('The months of the series; null when the company has no such data.'),
    currency: z.string().nullable().describe('The one currency of every money value.'),
    ...conversionOutput,
    firm_currency: z.string().describe('Currency of every converted_value.'),
    quarters: z
      .string()
      .describe('calendar, or fiscal (year ends DD Mon): what the quarters and years of `periods` are.'),
    definitions: z.string().describe('How growth, CMGR and the series are computed.'),
    series: z
      .object(
        Object.fromEntries(CATEGORIES.map((c) => [c, Series.optional()])) as Record<
          Category,
          z.ZodOptional<typeof Series>
        >,
      )
      .describe('One series per category asked for.'),
  }),
  annotations: readOnly,
  concise: concisePerformance,
  ui: { resourceUri: VIEWS.company.uri },
  async handler(ctx, input) {
    // The previous TTM of a value early in the window, on quarterly rows, reaches 26 months before the
    // window starts; the CMGR base lies `months` months before the latest value.
    const wanted = await selectCategories(ctx, CATEGORIES, input.categories);
    const data = await loadCompanyData(
      ctx,
      input.company_id,
      CATEGORIES,
      (asOf) => asOf - input.months + 1 - Math.max(26, input.months),
    );
    const end = data.asOf;
    const start = end === null ? null : end - input.months + 1;
    const series = {} as Record<Category, z.input<typeof Series>>;
    const preferred = ctx.principal.firm.preferred_currency;
    const fiscalYearEnd = input.fiscal ? (data.fiscalYearEnd ?? '12-31') : null;
    const yearStart = fiscalYearEnd === null ? 0 : fiscalYearStart(fiscalYearEnd);
    for (const category of wanted) {
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
        points:
          input.period === 'month'
            ? points(chosen, latest, start, end, (value, month) =>
                unit === 'money'
                  ? (convertAmount(value, currency, month, preferred, data.rates)?.value ?? null)
                  : null,
              )
            : [],
        periods:
          input.period === 'month'
            ? []
            : periodPoints(category, data.byCategory, input.period, start, end, yearStart, (value, month) =>
                unit === 'money'
                  ? (convertAmount(value, currency, month, preferred, data.rates)?.value ?? null)
                  : null,
              ),
        latest: withConverted(latestFigure(category, unit, currency, chosen, latest), preferred, data.rates),
        mom: growth(category, chosen, latest, 1, 'month-on-month'),
        qoq: growth(category, chosen, latest, 3, 'quarter-on-quarter'),
        yoy: isStock(category)
          ? growth(category, chosen, latest, 12, 'year-on-year')
          : ttmGrowth(category, data.byCategory.get(category) ?? [], latest.month),
        yoy_month: growth(category, chosen, latest, 12, 'year-on-year'),
        cmgr: cmgr(category, chosen, latest, input.months),
      };
    }
    return {
      company_id: data.companyId,
      company_name: data.companyName,
      months: input.months,
      window: start === null || end === null ? null : period(start, end),
      ...conversionOf(data),
      firm_currency: preferred,
      quarters: periodsText(fiscalYearEnd),
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
    periods: [],
    latest: nullLatest(category, unit, currency, reason),
    mom: noGrowth,
    qoq: noGrowth,
    yoy: noGrowth,
    yoy_month: noGrowth,
    cmgr: noGrowth,
  };
}

/** Every month of the window (every quarter or year, aligned on the latest row, for coarser cadences). */
function points(
  chosen: Chosen,
  latest: Observation,
  start: Month,
  end: Month,
  convert: (value: string | null, month: string) => string | null,
) {
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
      converted_value: convert(o ? observedText(o) : null, monthText(m)),
    };
  });
}

/** The periods (calendar or fiscal) overlapping [start, end], each with its growth over the period before and a year before. */
function periodPoints(
  category: Category,
  byCategory: Map<string, Observation[]>,
  unit: PeriodUnit,
  start: Month,
  end: Month,
  yearStart: YearStart,
  convert: (value: string | null, month: string) => string | null,
) {
  const first = periodStart(unit, start, yearStart);
  const range = { from: first - 12, to: end };
  const rows = (c: string) => byCategory.get(c) ?? [];
  const rolled =
    category === 'gross_margin'
      ? marginRollUp(rows('gross_margin'), rows('revenue'), unit, range, yearStart)
      : rollUp(category, rows(category), unit, range, yearStart);
  const byStart = new Map(rolled.map((r) => [r.from, r]));
  const change = (base: Rolled | undefined, now: Rolled) => {
    if (!base?.complete || !now.complete || !base.value || !now.value || badBase(base.value, base.label))
      return null;
    return D.toFixed(percentChange(base.value, now.value), 2);
  };
  return rolled
    .filter((r) => r.from >= first)
    .map((r) => {
      const value = r.value === null ? null : valueText(category, r);
      return {
        period: r.label,
        span: period(r.from, r.to),
        value,
        complete: r.complete,
        growth: change(byStart.get(r.from - PERIOD_MONTHS[unit]), r),
        yoy_growth: change(byStart.get(r.from - 12), r),
        converted_value: convert(value, monthText(r.to)),
        reason: r.value === null ? r.reason : null,
      };
    });
}

function valueText(category: string, r: Rolled): string {
  const exact = category !== 'gross_margin' && r.rows.every((o) => !o.converted);
  return exact ? D.toText(r.value!) : D.toFixed(r.value!, 2);
}

/**
 * ((latest / base)^(1/months) − 1) × 100 with base the value exactly `months` months before the latest. A
 * fractional power has no exact decimal form, so this one figure goes through Number, rounded to 2 decimals.
 */
function cmgr(category: string, chosen: Chosen, latest: Observation, months: number) {
  const baseMonth = latest.month - months;
  const when = period(baseMonth, latest.month);
  if (months % chosen.step !== 0) {
    return nullFigure(
      'percent',
      null,
      `${category} is reported per ${chosen.cadence}; a CMGR over ${months} months needs a value ${months} months before the latest`,
      sourceOf([category], chosen.cadence, [latest]),
      when,
    );
  }
  const base = chosen.byMonth.get(baseMonth);
  if (!base) {
    return nullFigure(
      'percent',
      null,
      `no ${category} value ${months} months before the latest (${monthText(baseMonth)}); CMGR over ${months} months needs it`,
      sourceOf([category], chosen.cadence, [latest]),
      when,
    );
  }
  const source = sourceOf([category], chosen.cadence, [base, latest]);
  if (!base.value || !latest.value) {
    return nullFigure('percent', null, (base.value ? latest : base).reason ?? 'value missing', source, when);
  }
  const bad = badBase(base.value, `${category} ${monthText(baseMonth)}`);
  if (bad) return nullFigure('percent', null, bad, source, when);
  if (D.sign(latest.value) < 0) {
    return nullFigure(
      'percent',
      null,
      `latest value is negative (${D.toText(latest.value)}); a compound rate needs a non-negative end value`,
      source,
      when,
    );
  }
  const ratio = D.toNumber(D.div(latest.value, base.value, 12));
  const rate = (ratio ** (1 / months) - 1) * 100;
  return figure(D.readDecimal(rate.toFixed(2)), 'percent', null, when, source);
}
