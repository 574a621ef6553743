import { z } from 'zod';
import { add, compareDecimal, readDecimal, toText } from '../../core/decimal.ts';
import type { FinancingRecord, StoredMoney } from '../../db/repos/cap-table.ts';
import { conciseDefault } from '../concise.ts';
import { defineTool, readOnly } from '../define.ts';
import { FinancingOut, financingAmounts, toFinancingOut } from '../schemas/financing.ts';
import { MoneyAmount, type MoneyConverter } from '../schemas/money.ts';
import { idsFilter, listFilter, pagedResults, pageOf, readFilter } from './shared.ts';

const SORTS = [
  'closing_date',
  '+closing_date',
  '-closing_date',
  'round_size',
  '+round_size',
  '-round_size',
  'post_money_valuation',
  '+post_money_valuation',
  '-post_money_valuation',
  'lead_investor',
  '+lead_investor',
  '-lead_investor',
] as const;

const RoundOut = FinancingOut.extend({
  post_money_valuation: MoneyAmount.nullable().describe(
    'A post-money override dated on the closing date (upsert_overrides), else pre-money plus round size.',
  ),
  post_money_source: z.enum(['reported', 'pre_money_plus_round']).nullable().describe('null when unknown.'),
  lead_investor: z
    .string()
    .nullable()
    .describe('Co-investor(s) marked lead, comma-separated; null when none.'),
});

const RoundTotals = z
  .object({
    count: z.number().int().describe('Rounds counted.'),
    currency: z.string().describe("The firm's currency the sum and max are in."),
    round_size_sum: z
      .string()
      .nullable()
      .describe('Sum of the round sizes, each converted at its closing date.'),
    round_size_max: z.string().nullable().describe('The largest round size, converted.'),
    rounds_without_size: z
      .number()
      .int()
      .describe('Rounds with no size, or none convertible: left out of the sum and max.'),
  })
  .describe('Over every round the filters keep, all pages.');

/** Count, sum and max of the round sizes in the firm's currency; a round with no convertible size is counted apart. */
function roundTotals(rows: readonly FinancingRecord[], fx: MoneyConverter): z.output<typeof RoundTotals> {
  let sum: string | null = null;
  let max: string | null = null;
  let without = 0;
  for (const row of rows) {
    const size = fx.convertedValue(row.round_size, row.closing_date);
    if (size === null) {
      without += 1;
      continue;
    }
    sum = sum === null ? size : toText(add(readDecimal(sum)!, readDecimal(size)!));
    if (max === null || compareDecimal(size, max) > 0) max = size;
  }
  return {
    count: rows.length,
    currency: fx.preferred,
    round_size_sum: sum,
    round_size_max: max,
    rounds_without_size: without,
  };
}

/** Post-money overrides by company and date. */
type Reported = Map<string, StoredMoney>;

/** The round's post-money: reported on its closing date, else pre-money plus round size in one currency. */
function postMoney(
  row: FinancingRecord,
  reported: Reported,
): { money: StoredMoney; source: 'reported' | 'pre_money_plus_round' } | null {
  const given = reported.get(`${row.company_id}\u0000${row.closing_date}`);
  if (given) return { money: given, source: 'reported' };
  const pre = row.pre_money.value === null ? null : readDecimal(row.pre_money.value);
  const size = row.round_size.value === null ? null : readDecimal(row.round_size.value);
  if (!pre || !size || row.pre_money.currency !== row.round_size.currency) return null;
  const rate = row.pre_money.fx_rate === row.round_size.fx_rate ? row.pre_money.fx_rate : null;
  return {
    money: {
      value: toText(add(pre, size)),
      currency: row.pre_money.currency,
      fx_rate: rate,
      is_custom_rate: rate ? row.pre_money.is_custom_rate : null,
    },
    source: 'pre_money_plus_round',
  };
}

function leadInvestor(row: FinancingRecord): string | null {
  const leads = row.co_investors.filter((c) => c.is_lead).map((c) => c.name);
  return leads.length ? leads.join(', ') : null;
}

function byId(a: FinancingRecord, b: FinancingRecord): number {
  return a.id < b.id ? -1 : a.id > b.id ? 1 : 0;
}

/** Orders rounds by closing date, lead investor, or round size or post-money in the firm's currency (unknown last). */
function sortRounds(
  rows: readonly FinancingRecord[],
  sortBy: string,
  fx: MoneyConverter,
  reported: Reported,
): FinancingRecord[] {
  const descending = sortBy.startsWith('-');
  const sign = descending ? -1 : 1;
  if (sortBy.endsWith('lead_investor')) {
    const lead = new Map(rows.map((r) => [r.id, leadInvestor(r)?.toLowerCase() ?? null]));
    return [...rows].sort((a, b) => {
      const x = lead.get(a.id) ?? null;
      const y = lead.get(b.id) ?? null;
      if (x === null || y === null) return x === y ? byId(a, b) : x === null ? 1 : -1;
      return sign * (x < y ? -1 : x > y ? 1 : byId(a, b));
    });
  }
  if (sortBy.endsWith('closing_date')) {
    return [...rows].sort(
      (a, b) =>
        sign * (a.closing_date < b.closing_date ? -1 : a.closing_date > b.closing_date ? 1 : byId(a, b)),
    );
  }
  const amountOf = (r: FinancingRecord) =>
    sortBy.endsWith('round_size') ? r.round_size : postMoney(r, reported)?.money;
  const size = new Map(
    rows.map((r) => {
      const money = amountOf(r);
      return [r.id, money ? fx.convertedValue(money, r.closing_date) : null];
    }),
  );
  return [...rows].sort((a, b) => {
    const x = size.get(a.id) ?? null;
    const y = size.get(b.id) ?? null;
    if (x === null || y === null) return x === y ? sign * byId(a, b) : x === null ? 1 : -1;
    return sign * (compareDecimal(x, y) || byId(a, b));
  });
}

export const getFinancingEvents = defineTool({
  name: 'get_financing_events',
  title: 'Get financing events (cap table rounds)',
  description:
    "Financing rounds you can see, by closing date: pre- and post-money valuation, size (also in the firm's currency), lead investor, fully diluted shares, co-investors, liquidation terms, pari passu rounds. totals: count, sum and max of the round sizes in the firm's currency over every page (per_page 1 for totals alone). Concise rows leave out co_investors (lead_investor names the lead) and pari_passu_rounds; response_format detailed has them.",
  input: readFilter({
    financing_ids: idsFilter('financing', 'from get_financing_events'),
    is_crypto: z.boolean().nullish().describe('true: only crypto financing events; false: only the others.'),
    co_investors: z
      .array(
        z.object({
          name: z
            .string()
            .min(1)
            .describe('Co-investor name, matched case-insensitively against the whole name.'),
          role: z
            .enum(['any', 'lead', 'co'])
            .default('any')
            .describe('lead: the co-investor led the round; co: took part without leading; any (default).'),
        }),
      )
      .max(20)
      .nullish()
      .describe('Only rounds with these co-investors; a round must match every entry.'),
    sort_by: z
      .enum(SORTS)
      .nullish()
      .describe(
        "By closing_date, round_size or post_money_valuation (in the firm's currency), or lead_investor; - descending, " +
          '+ or none ascending. Default closing_date. Unknowns last.',
      ),
  }),
  output: pageOf(RoundOut).extend({ totals: RoundTotals.optional() }),
  annotations: readOnly,
  routes: [
    {
      method: 'POST',
      path: '/beta/investment/financing-events/get/',
      summary: 'Get financing events',
      body: 'merge',
      envelope: 'results',
    },
  ],
  concise: ({ results, ...rest }) =>
    conciseDefault({
      ...rest,
      results: results.map(({ co_investors: _c, pari_passu_rounds: _p, ...round }) => round),
    }),
  async handler(ctx, input) {
    const rows = await ctx.repos.capTable.financings(ctx.principal.scope, {
      companyIds: listFilter(input.company_ids),
      financingIds: listFilter(input.financing_ids),
      isCrypto: input.is_crypto ?? undefined,
      coInvestors: input.co_investors ?? undefined,
    });
    const overrides = rows.length
      ? await ctx.repos.capTable.postMoneyOverrides(ctx.principal.scope, {
          companyIds: [...new Set(rows.map((r) => r.company_id))],
          onOrBefore: '9999-12-31',
        })
      : [];
    // Oldest first: the latest override of a date wins.
    const reported: Reported = new Map(
      overrides.map((o) => [`${o.company_id}\u0000${o.date}`, o.post_money_valuation]),
    );
    const sortBy = input.sort_by;
    return pagedResults(ctx, rows, input, {
      amounts: (row) => {
        const post = postMoney(row, reported);
        return [...financingAmounts(row), ...(post ? [{ money: post.money, date: row.closing_date }] : [])];
      },
      out: (row, fx) => {
        const post = postMoney(row, reported);
        return {
          ...toFinancingOut(row, fx),
          post_money_valuation: post ? fx.amount(post.money, row.closing_date) : null,
          post_money_source: post?.source ?? null,
          lead_investor: leadInvestor(row),
        };
      },
      order: sortBy ? (all, fx) => sortRounds(all, sortBy, fx, reported) : undefined,
      totals: roundTotals,
    });
  },
});
