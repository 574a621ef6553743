import { z } from 'zod';
import { Figure, LatestFigure, Period } from '../../analytics/figure.ts';
import {
  SUMMARY_CATEGORIES,
  SUMMARY_KEYS,
  type SummaryKey,
  summarize,
  summaryFrom,
  withConvertedMoney,
} from '../../analytics/financial-summary.ts';
import { loadCompanyData } from '../../analytics/series.ts';
import { defineTool, readOnly } from '../define.ts';
import { companyIdInput, conversionOf, conversionOutput, monthsInput } from '../schemas/analytics.ts';
import { conciseSummary } from './performance-concise.ts';

const DEFINITIONS =
  'As of `as_of_month`, the latest month with data. latest: the newest value of each category in the ' +
  '`months` window (flows in their finest reported cadence). Trailing figures cover the 12 (or 3) months ' +
  'ending at as_of_month, from monthly rows, or from quarterly rows when the months are not all reported ' +
  '(never a mix); a missing month makes them null. ttm_revenue, ttm_net_burn: sums of 12 months. ' +
  'gross_margin_ttm = TTM gross_profit / TTM revenue × 100 (the latest reported gross margin is ' +
  'latest.gross_margin). net_new_arr_ttm = ARR at as_of_month − ARR 12 months earlier, or else the ' +
  'sum of 12 monthly net_new_arr. net_burn_avg_3m = net_burn summed over the 3 months ending at as_of_month, / 3. ' +
  'burn_multiple = ttm_net_burn / net_new_arr_ttm (null when not burning or ARR did not grow). runway_months = ' +
  'latest cash_in_bank / net_burn_avg_3m (null when that average ≤ 0). revenue_growth_yoy = (TTM revenue − TTM ' +
  'revenue of the 12 months before) / the earlier TTM × 100; revenue_growth_yoy_month = (revenue of as_of_month − ' +
  'revenue of the same month a year earlier) / the earlier × 100 (quarterly rows: the latest quarter). ' +
  'ebitda_margin_ttm = TTM ebitda / TTM revenue × 100. rule_of_40 = revenue_growth_yoy + ebitda_margin_ttm, in ' +
  'percentage points. nrr = (ARR 12 months earlier + TTM expansion_arr − TTM contraction_arr − TTM churned_arr) / ' +
  'ARR 12 months earlier × 100 (contraction and churn count as losses whatever their sign). Values are decimal ' +
  'strings with 2 decimals; every percentage is in percent (12.50 = 12.5 %), stored percentage categories ' +
  'included (a stored gross_margin of 0.25 reads 25.00). Deleted and budget data are left out; archived data counts.';

export const getCompanyFinancialSummary = defineTool({
  name: 'get_company_financial_summary',
  title: 'Financial summary of a company',
  description:
    "Key figures of one company over all its data: latest revenue, ARR, net burn, cash, headcount, margins; TTM revenue and burn, burn multiple (TTM burn / net new ARR), runway (cash / 3-month average burn), rule of 40, net new ARR, NRR; each with its period (and value in the firm's currency), or why it is null. detailed adds sources and definitions.",
  input: z.object({
    company_id: companyIdInput,
    months: monthsInput('Months back from the latest data to look for latest values (not trailing figures).'),
  }),
  output: z.object({
    company_id: z.string(),
    company_name: z.string(),
    months: z.number().int(),
    as_of_month: z.string().nullable().describe('YYYY-MM the trailing figures end at; null without data.'),
    window: Period.nullable().describe('Months searched for the latest values.'),
    currency: z.string().nullable().describe('The one currency of every money figure.'),
    ...conversionOutput,
    definitions: z.string().describe('How each figure is computed.'),
    latest: z
      .object(
        Object.fromEntries(SUMMARY_KEYS.map((k) => [k, LatestFigure])) as Record<
          SummaryKey,
          typeof LatestFigure
        >,
      )
      .describe('The latest value and date of each key category.'),
    ttm_revenue: Figure,
    ttm_net_burn: Figure,
    net_burn_avg_3m: Figure.describe('Average monthly net burn over the 3 months ending at as_of_month.'),
    gross_margin_ttm: Figure,
    net_new_arr_ttm: Figure,
    burn_multiple: Figure,
    runway_months: Figure,
    revenue_growth_yoy: Figure.describe('TTM revenue over the TTM revenue of the 12 months before, percent.'),
    revenue_growth_yoy_month: Figure.describe(
      'Revenue of as_of_month (or its latest quarter) over the same period a year earlier, percent.',
    ),
    ebitda_margin_ttm: Figure,
    rule_of_40: Figure,
    nrr: Figure,
  }),
  annotations: readOnly,
  concise: conciseSummary,
  async handler(ctx, input) {
    const data = await loadCompanyData(ctx, input.company_id, SUMMARY_CATEGORIES, summaryFrom(input.months));
    return {
      company_id: data.companyId,
      company_name: data.companyName,
      months: input.months,
      ...conversionOf(data),
      definitions: DEFINITIONS,
      ...withConvertedMoney(summarize(data, input.months), ctx.principal.firm.preferred_currency, data.rates),
    };
  },
});
