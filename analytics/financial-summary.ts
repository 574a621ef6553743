// The figures of get_company_financial_summary, computed from one company's observations; the
// portfolio tools use the same function so a figure means the same thing everywhere.
import * as D from '../core/decimal.ts';
import type { Figure as FigureValue, LatestFigure as LatestValue, Period } from './figure.ts';
import {
  emptySource,
  figure,
  growth,
  latestFigure,
  mergeSources,
  nullFigure,
  nullLatest,
  percentOf,
  sourceOf,
  type Trailing,
  trailingSum,
  ttmGrowth,
} from './figures.ts';
import {
  bucket,
  type CompanyData,
  chooseSeries,
  latestIn,
  type Month,
  monthText,
  NO_COMPANY_DATA,
  noDataBetween,
  type Observation,
  period,
  unitOf,
  withConverted,
} from './series.ts';

export const SUMMARY_KEYS = [
  'revenue',
  'arr',
  'net_burn',
  'cash_in_bank',
  'headcount',
  'gross_margin',
  'ebitda',
  'net_income',
] as const;
export type SummaryKey = (typeof SUMMARY_KEYS)[number];
const KEY = SUMMARY_KEYS;
type Key = SummaryKey;
const COMPONENTS = [
  'gross_profit',
  'net_new_arr',
  'expansion_arr',
  'contraction_arr',
  'churned_arr',
] as const;
export const SUMMARY_CATEGORIES = [...KEY, ...COMPONENTS];

/**
 * The categories behind the portfolio figures (cash, ARR, TTM revenue and its growth, net burn, runway,
 * burn multiple, gross margin, headcount) with how many months before the as-of month each must be read
 * from: trailing figures on quarterly rows reach 14 months back, revenue's previous TTM 26, the base of
 * ARR's and headcount's change over 12 months 23.
 */
export const PORTFOLIO_LOOKBACK: ReadonlyMap<string, number> = new Map([
  ['revenue', 26],
  ['net_burn', 14],
  ['gross_profit', 14],
  ['net_new_arr', 14],
  ['arr', 23],
  ['cash_in_bank', 11],
  ['headcount', 23],
]);

/** The first month a summary as of `asOf` reads: the TTM before the TTM, on quarterly rows, reaches 26 months back. */
export const summaryFrom = (months: number) => (asOf: Month) => asOf - Math.max(months - 1, 26);

export interface Summary {
  as_of_month: string | null;
  window: Period | null;
  latest: Record<Key, LatestValue>;
  ttm_revenue: FigureValue;
  ttm_net_burn: FigureValue;
  net_burn_avg_3m: FigureValue;
  gross_margin_ttm: FigureValue;
  net_new_arr_ttm: FigureValue;
  burn_multiple: FigureValue;
  runway_months: FigureValue;
  revenue_growth_yoy: FigureValue;
  revenue_growth_yoy_month: FigureValue;
  ebitda_margin_ttm: FigureValue;
  rule_of_40: FigureValue;
  nrr: FigureValue;
}

/** The summary with every money figure also in the firm's preferred currency. */
export function withConvertedMoney(
  summary: Summary,
  preferred: string,
  rates: CompanyData['rates'],
): Summary {
  const out = { ...summary, latest: { ...summary.latest } };
  for (const k of SUMMARY_KEYS) out.latest[k] = withConverted(summary.latest[k], preferred, rates);
  for (const k of Object.keys(out) as (keyof Summary)[]) {
    const v = out[k];
    if (v !== null && typeof v === 'object' && 'unit' in v) {
      (out as Record<string, unknown>)[k] = withConverted(v as FigureValue, preferred, rates);
    }
  }
  return out;
}

/** Every figure of the financial summary of one company's data. */
export function summarize(data: CompanyData, months: number): Summary {
  const E = data.asOf;
  if (E === null) {
    const none = (unit: FigureValue['unit'], categories: string[]) =>
      nullFigure(unit, null, NO_COMPANY_DATA, emptySource(categories));
    return {
      as_of_month: null,
      window: null,
      latest: Object.fromEntries(
        KEY.map((k) => [k, nullLatest(k, unitOf(k), null, NO_COMPANY_DATA)]),
      ) as Record<Key, LatestValue>,
      ttm_revenue: none('money', ['revenue']),
      ttm_net_burn: none('money', ['net_burn']),
      net_burn_avg_3m: none('money', ['net_burn']),
      gross_margin_ttm: none('percent', ['gross_profit', 'revenue']),
      net_new_arr_ttm: none('money', ['arr', 'net_new_arr']),
      burn_multiple: none('multiple', ['net_burn', 'arr']),
      runway_months: none('months', ['cash_in_bank', 'net_burn']),
      revenue_growth_yoy: none('percent', ['revenue']),
      revenue_growth_yoy_month: none('percent', ['revenue']),
      ebitda_margin_ttm: none('percent', ['ebitda', 'revenue']),
      rule_of_40: none('percent', ['revenue', 'ebitda']),
      nrr: none('percent', ['arr', 'expansion_arr', 'contraction_arr', 'churned_arr']),
    };
  }
  const start = E - months + 1;
  const currency = data.currency;
  const obs = (c: string) => data.byCategory.get(c) ?? [];
  const money = (t: Trailing) => figure(t.total, 'money', currency, t.period, t.source, t.reason);

  const latest = {} as Record<Key, LatestValue>;
  for (const k of KEY) {
    const chosen = chooseSeries(k, obs(k), start, E);
    const o = latestIn(chosen, start, E);
    latest[k] = o
      ? latestFigure(k, unitOf(k), currency, chosen, o)
      : nullLatest(k, unitOf(k), currency, noDataBetween(k, start, E));
  }

  const revenue = trailingSum('revenue', obs('revenue'), E, 12);
  const netBurn = trailingSum('net_burn', obs('net_burn'), E, 12);
  const ebitda = trailingSum('ebitda', obs('ebitda'), E, 12);
  const grossProfit = trailingSum('gross_profit', obs('gross_profit'), E, 12);
  const netNewArr = netNewArrTtm(obs('arr'), obs('net_new_arr'), E, currency);
  const revenueGrowth = ttmGrowth('revenue', obs('revenue'), E);
  const ebitdaMargin = margin('ebitda', ebitda, revenue);
  const burn3 = trailingSum('net_burn', obs('net_burn'), E, 3);
  return {
    as_of_month: monthText(E),
    window: period(start, E),
    latest,
    ttm_revenue: money(revenue),
    ttm_net_burn: money(netBurn),
    net_burn_avg_3m: money({ ...burn3, total: burn3.total && D.div(burn3.total, D.fromInteger(3), 2) }),
    gross_margin_ttm: withHint(
      margin('gross_profit', grossProfit, revenue),
      'the latest reported gross margin is latest.gross_margin',
    ),
    net_new_arr_ttm: netNewArr,
    burn_multiple: burnMultiple(netBurn, netNewArr),
    runway_months: runway(latest.cash_in_bank, obs('cash_in_bank'), burn3, E),
    revenue_growth_yoy: revenueGrowth,
    revenue_growth_yoy_month: yoyAt('revenue', obs('revenue'), E),
    ebitda_margin_ttm: ebitdaMargin,
    rule_of_40: ruleOf40(revenueGrowth, ebitdaMargin),
    nrr: nrr(obs, E),
  };
}

function withHint(f: FigureValue, hint: string): FigureValue {
  return f.reason === null ? f : { ...f, reason: `${f.reason}; ${hint}` };
}

const samePeriod = (a: Period | null, b: Period | null) => a?.from === b?.from && a?.to === b?.to;

/** `part / whole × 100` of two trailing totals over the same months. */
function margin(part: string, numerator: Trailing, revenue: Trailing): FigureValue {
  const source = mergeSources(numerator.source, revenue.source);
  const when = numerator.period;
  if (numerator.total === null)
    return nullFigure('percent', null, `TTM ${part}: ${numerator.reason}`, source, when);
  if (revenue.total === null)
    return nullFigure('percent', null, `TTM revenue: ${revenue.reason}`, source, when);
  if (!samePeriod(numerator.period, revenue.period)) {
    return nullFigure(
      'percent',
      null,
      `TTM ${part} covers ${numerator.period?.from}–${numerator.period?.to} but TTM revenue covers ` +
        `${revenue.period?.from}–${revenue.period?.to}`,
      source,
      when,
    );
  }
  if (D.sign(revenue.total) <= 0) {
    return nullFigure(
      'percent',
      null,
      `TTM revenue is ${D.toFixed(revenue.total, 2)}; a margin needs positive revenue`,
      source,
      when,
    );
  }
  return figure(percentOf(numerator.total, revenue.total), 'percent', null, when, source);
}

function arrAt(arr: readonly Observation[]) {
  return bucket(arr, 'point_in_time');
}

/** ARR(E) − ARR(E − 12) when both are reported, else the sum of 12 monthly net_new_arr. */
function netNewArrTtm(
  arr: readonly Observation[],
  reported: readonly Observation[],
  E: Month,
  currency: string | null,
) {
  const byMonth = arrAt(arr);
  const now = byMonth.get(E);
  const before = byMonth.get(E - 12);
  const when = period(E - 11, E);
  if (now?.value && before?.value) {
    return figure(
      D.sub(now.value, before.value),
      'money',
      currency,
      when,
      sourceOf(['arr'], 'point_in_time', [before, now]),
    );
  }
  const summed = trailingSum('net_new_arr', reported, E, 12);
  if (summed.total !== null) return figure(summed.total, 'money', currency, summed.period, summed.source);
  const arrProblem =
    [now, before].find((o) => o && !o.value)?.reason ??
    `ARR is missing for ${[!now ? E : null, !before ? E - 12 : null]
      .filter((m): m is number => m !== null)
      .map(monthText)
      .join(' and ')}`;
  return nullFigure(
    'money',
    currency,
    `needs ARR for both ${monthText(E - 12)} and ${monthText(E)} (${arrProblem}) or net_new_arr for every month (${summed.reason})`,
    mergeSources(
      sourceOf(
        ['arr'],
        'point_in_time',
        [before, now].filter((o): o is Observation => !!o),
      ),
      summed.source,
    ),
    when,
  );
}

function burnMultiple(netBurn: Trailing, netNewArr: FigureValue): FigureValue {
  const source = mergeSources(netBurn.source, netNewArr.source);
  const when = netBurn.period;
  if (netBurn.total === null)
    return nullFigure('multiple', null, `TTM net burn: ${netBurn.reason}`, source, when);
  if (D.sign(netBurn.total) <= 0) {
    return nullFigure(
      'multiple',
      null,
      `company is not burning cash (TTM net burn is ${D.toFixed(netBurn.total, 2)})`,
      source,
      when,
    );
  }
  if (netNewArr.value === null)
    return nullFigure('multiple', null, `net new ARR: ${netNewArr.reason}`, source, when);
  const arr = D.readDecimal(netNewArr.value)!;
  if (D.sign(arr) <= 0) {
    return nullFigure(
      'multiple',
      null,
      `net new ARR is ${netNewArr.value}; a burn multiple needs ARR to grow`,
      source,
      when,
    );
  }
  if (!samePeriod(netBurn.period, netNewArr.period)) {
    return nullFigure(
      'multiple',
      null,
      `TTM net burn covers ${netBurn.period?.from}–${netBurn.period?.to} but net new ARR covers ` +
        `${netNewArr.period?.from}–${netNewArr.period?.to}`,
      source,
      when,
    );
  }
  return figure(D.div(netBurn.total, arr, 2), 'multiple', null, when, source);
}

function runway(cash: LatestValue, cashRows: readonly Observation[], burn: Trailing, E: Month): FigureValue {
  const cashObs = cashRows.filter((o) => cash.source.datum_ids.includes(o.id));
  const source = mergeSources(cash.source, burn.source);
  const when = burn.period ? { from: burn.period.from, to: monthText(E) } : null;
  if (cash.value === null) return nullFigure('months', null, `cash in bank: ${cash.reason}`, source, when);
  if (burn.total === null) {
    return nullFigure('months', null, `average net burn of the last 3 months: ${burn.reason}`, source, when);
  }
  if (D.sign(burn.total) <= 0) {
    return nullFigure(
      'months',
      null,
      `company is not burning cash (average monthly net burn over ${burn.period?.from}–${burn.period?.to} is ` +
        `${D.toFixed(D.div(burn.total, D.fromInteger(3), 2), 2)})`,
      source,
      when,
    );
  }
  const amount = cashObs[0]?.value ?? D.readDecimal(cash.value)!;
  if (D.sign(amount) < 0) {
    return nullFigure('months', null, `cash in bank is negative (${cash.value})`, source, when);
  }
  // cash ÷ (sum of 3 months ÷ 3), exact until the final rounding.
  return figure(D.div(D.mul(amount, D.fromInteger(3)), burn.total, 2), 'months', null, when, source);
}

/** The single-period comparison: the as-of month (or its latest quarter) over the same period a year earlier. */
function yoyAt(category: string, rows: readonly Observation[], E: Month): FigureValue {
  const monthly = bucket(rows, 'month');
  const now = monthly.get(E);
  if (now) return growth(category, { cadence: 'month', step: 1, byMonth: monthly }, now, 12, 'year-on-year');
  const quarterly = bucket(rows, 'quarter');
  const anchor = [...quarterly.keys()].filter((m) => m <= E && m > E - 3).sort((a, b) => b - a)[0];
  if (anchor !== undefined) {
    return growth(
      category,
      { cadence: 'quarter', step: 3, byMonth: quarterly },
      quarterly.get(anchor),
      12,
      'year-on-year',
    );
  }
  return nullFigure(
    'percent',
    null,
    `no ${category} for ${monthText(E)} (monthly) or for a quarter ending ${monthText(E - 2)} to ${monthText(E)}`,
    emptySource([category]),
    period(E - 12, E),
  );
}

function ruleOf40(growthFigure: FigureValue, marginFigure: FigureValue): FigureValue {
  const source = mergeSources(growthFigure.source, marginFigure.source);
  const when =
    growthFigure.period && marginFigure.period
      ? {
          from: [growthFigure.period.from, marginFigure.period.from].sort()[0]!,
          to: [growthFigure.period.to, marginFigure.period.to].sort()[1]!,
        }
      : (marginFigure.period ?? growthFigure.period);
  if (growthFigure.value === null) {
    return nullFigure('percent', null, `revenue growth (YoY): ${growthFigure.reason}`, source, when);
  }
  if (marginFigure.value === null) {
    return nullFigure('percent', null, `EBITDA margin (TTM): ${marginFigure.reason}`, source, when);
  }
  const total = D.add(D.readDecimal(growthFigure.value)!, D.readDecimal(marginFigure.value)!);
  return figure(total, 'percent', null, when, source);
}

function nrr(obs: (c: string) => readonly Observation[], E: Month): FigureValue {
  const when = period(E - 11, E);
  const base = arrAt(obs('arr')).get(E - 12);
  const parts = {
    expansion: trailingSum('expansion_arr', obs('expansion_arr'), E, 12),
    contraction: trailingSum('contraction_arr', obs('contraction_arr'), E, 12),
    churn: trailingSum('churned_arr', obs('churned_arr'), E, 12),
  };
  const source = mergeSources(
    sourceOf(['arr'], 'point_in_time', base ? [base] : []),
    parts.expansion.source,
    parts.contraction.source,
    parts.churn.source,
  );
  if (!base)
    return nullFigure(
      'percent',
      null,
      `no ARR for ${monthText(E - 12)}, 12 months before ${monthText(E)}`,
      source,
      when,
    );
  if (!base.value) return nullFigure('percent', null, base.reason ?? 'ARR value missing', source, when);
  if (D.sign(base.value) <= 0) {
    return nullFigure(
      'percent',
      null,
      `base value is zero or negative: ARR ${monthText(E - 12)} is ${D.toText(base.value)}`,
      source,
      when,
    );
  }
  for (const [name, t] of Object.entries(parts)) {
    if (t.total === null) return nullFigure('percent', null, `${name} ARR: ${t.reason}`, source, when);
    if (!samePeriod(t.period, when)) {
      return nullFigure(
        'percent',
        null,
        `${name} ARR covers ${t.period?.from}–${t.period?.to}, not ${when.from}–${when.to}`,
        source,
        when,
      );
    }
  }
  const retained = D.sub(
    D.sub(D.add(base.value, parts.expansion.total!), D.abs(parts.contraction.total!)),
    D.abs(parts.churn.total!),
  );
  return figure(percentOf(retained, base.value), 'percent', null, when, source);
}
