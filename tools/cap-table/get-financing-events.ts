import { z } from 'zod';
import { compareDecimal } from '../../core/decimal.ts';
import type { FinancingRecord } from '../../db/repos/cap-table.ts';
import { defineTool, readOnly } from '../define.ts';
import { FinancingOut, financingAmounts, toFinancingOut } from '../schemas/financing.ts';
import type { MoneyConverter } from '../schemas/money.ts';
import { idsFilter, listFilter, pagedResults, pageOf, readFilter } from './shared.ts';

const SORTS = [
  'closing_date',
  '+closing_date',
  '-closing_date',
  'round_size',
  '+round_size',
  '-round_size',
] as const;

function byId(a: FinancingRecord, b: FinancingRecord): number {
  return a.id < b.id ? -1 : a.id > b.id ? 1 : 0;
}

/** Orders rounds by closing date or by round size in the firm's currency (rounds without one last). */
function sortRounds(rows: readonly FinancingRecord[], sortBy: string, fx: MoneyConverter): FinancingRecord[] {
  const descending = sortBy.startsWith('-');
  const sign = descending ? -1 : 1;
  if (sortBy.endsWith('closing_date')) {
    return [...rows].sort(
      (a, b) =>
        sign * (a.closing_date < b.closing_date ? -1 : a.closing_date > b.closing_date ? 1 : byId(a, b)),
    );
  }
  const size = new Map(rows.map((r) => [r.id, fx.convertedValue(r.round_size, r.closing_date)]));
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
    "Financing rounds of the cap tables you can see, by closing date: valuation, size (also in the firm's currency), fully diluted shares, co-investors, liquidation terms, pari passu rounds.",
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
        "closing_date or round_size (by value in the firm's currency); prefix - for descending, + or none for " +
          'ascending. Default closing_date ascending. Rounds without a converted size sort last.',
      ),
  }),
  output: pageOf(FinancingOut),
  annotations: readOnly,
  async handler(ctx, input) {
    const rows = await ctx.repos.capTable.financings(ctx.principal.scope, {
      companyIds: listFilter(input.company_ids),
      financingIds: listFilter(input.financing_ids),
      isCrypto: input.is_crypto ?? undefined,
      coInvestors: input.co_investors ?? undefined,
    });
    const sortBy = input.sort_by;
    return pagedResults(ctx, rows, input, {
      amounts: financingAmounts,
      out: toFinancingOut,
      order: sortBy ? (all, fx) => sortRounds(all, sortBy, fx) : undefined,
    });
  },
});
