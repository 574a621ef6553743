// Each company's investment returns over the firm's funds: get_investment_metrics and the screen's
// ownership, MOIC and fair value figures.
import { add, readDecimal, toNumber, ZERO } from '../core/decimal.ts';
import type { StoredMoney } from '../db/repos/cap-table.ts';
import { rateTable } from '../services/rates.ts';
import type { ReadContext } from './context.ts';
import { loadReturns, ownership, type Position, summarise, totalShares } from './fund-returns.ts';
import { roundFraction, roundMultiple } from './precision.ts';

/** The sum over the funds of each one's ownership override, else its shares over the fully diluted shares. */
function companyOwnership(
  positions: readonly Position[],
  fullyDiluted: string | null,
  overrides: ReadonlyMap<string, string>,
): number | null {
  let stated = ZERO;
  const computed: Position[] = [];
  for (const p of positions) {
    const override = overrides.get(`${p.companyId}\u0000${p.fundId}`);
    if (override === undefined) computed.push(p);
    else stated = add(stated, readDecimal(override)!);
  }
  if (computed.length === 0) return toNumber(stated);
  const rest = ownership(totalShares(computed), fullyDiluted);
  return rest === null ? null : toNumber(stated) + rest;
}

export interface InvestmentFilter {
  /** Omitted: every visible company. */
  companyIds?: string[];
  /** Omitted: every fund. */
  fundIds?: string[];
  /** YYYY-MM-DD the figures are measured at. */
  asOf: string;
}

/** One line per visible company the funds invested in, in the order the positions were loaded. */
export async function investmentMetrics(ctx: ReadContext, filter: InvestmentFilter) {
  const { asOf } = filter;
  const data = await loadReturns(ctx, filter);
  const overrideFilter = { companyIds: filter.companyIds, onOrBefore: asOf };
  const [ownerships, valuations] = await Promise.all([
    ctx.repos.capTable.ownershipOverrides(ctx.principal.scope, overrideFilter),
    ctx.repos.capTable.postMoneyOverrides(ctx.principal.scope, overrideFilter),
  ]);
  // Oldest first, so the latest on or before as_of_date wins.
  const ownershipOf = new Map(
    ownerships.map((o) => [`${o.company_id}\u0000${o.fund_id}`, o.ownership_percentage]),
  );
  const postMoneyOf = new Map(valuations.map((v) => [v.company_id, v.post_money_valuation]));
  const fx = await rateTable(
    ctx,
    [...postMoneyOf.values()].map((money) => ({ money, date: asOf })),
  );
  const byCompany = new Map<string, typeof data.positions>();
  for (const p of data.positions) byCompany.set(p.companyId, [...(byCompany.get(p.companyId) ?? []), p]);
  const postMoney = (money: StoredMoney | undefined) => (money ? fx.convertedValue(money, asOf) : null);
  return [...byCompany.values()].map((positions) => {
    const first = positions[0]!;
    const s = summarise(positions, data.currency);
    const facts = data.facts.get(first.companyId);
    const shares = totalShares(positions);
    return {
      company_id: first.companyId,
      company_name: first.companyName,
      as_of_date: asOf,
      currency: s.currency,
      irr: roundFraction(s.irr),
      irr_note: s.irr_note,
      moic: roundMultiple(s.moic),
      fair_value: s.fair_value,
      investment_amount: s.investment_amount,
      realized_value: s.realized_value,
      ownership: roundFraction(companyOwnership(positions, facts?.fullyDilutedShares ?? null, ownershipOf)),
      total_shares_owned: shares,
      pre_money_valuation: facts?.preMoney ?? null,
      post_money_valuation: postMoney(postMoneyOf.get(first.companyId)) ?? facts?.postMoney ?? null,
      fully_diluted_shares: facts?.fullyDilutedShares ?? null,
      latest_price_per_share: facts?.latestPrice ?? null,
      notes: s.notes,
      cash_flows: s.cash_flows,
    };
  });
}
