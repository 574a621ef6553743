import { nowIso } from '../../db/ids.ts';
import type { ServiceContext } from '../changes.ts';
import {
  checkCompany,
  checkFund,
  checkMoney,
  type ItemLists,
  type MoneyIn,
  rawIds,
  storedMoney,
  throwIfInvalid,
  visibleCompanies,
  withTableRates,
} from './items.ts';
import { writeOverrides } from './records.ts';

export type OverrideKind = 'ownerships' | 'post_money_valuations' | 'fair_values';

/** The items of each list of upsert_overrides, parsed. */
export interface OverridesIn {
  ownerships: { date: string; company_id: string; fund_id: string; ownership_percentage: string }[];
  post_money_valuations: { date: string; company_id: string; post_money_valuation: MoneyIn }[];
  fair_values: { date: string; company_id: string; fund_id: string; fair_value: MoneyIn }[];
}

/** The money field of each kind. */
const MONEY: Record<OverrideKind, string | null> = {
  ownerships: null,
  post_money_valuations: 'post_money_valuation',
  fair_values: 'fair_value',
};

/**
 * Sets ownership, post-money valuation and fair value overrides, each replacing the one of its company,
 * fund and date, all or none; amounts are recorded with the table rate of their date. Returns how
 * many were set.
 */
export async function upsertOverrides(ctx: ServiceContext, lists: ItemLists<OverrideKind>): Promise<number> {
  const all = lists.flatMap(([, items]) => items);
  const visible = await visibleCompanies(ctx, all);
  const funds = await ctx.repos.capTable.fundRefs(ctx.principal.firm.id, rawIds(all, 'fund_id'));
  for (const [kind, items] of lists) {
    for (const item of items) {
      const money = MONEY[kind];
      if (money) checkMoney(item, money, true);
      if (kind !== 'post_money_valuations') checkFund(item, funds);
      checkCompany(item, visible);
    }
  }
  throwIfInvalid(
    'overrides',
    lists.map(([, items]) => items),
  );

  const now = nowIso(ctx.clock.now());
  const valid = <K extends OverrideKind>(kind: K) =>
    (lists.find(([k]) => k === kind)?.[1] ?? []).map((i) => i.ok as OverridesIn[K][number]);
  const ownerships = valid('ownerships');
  const valuations = valid('post_money_valuations');
  const fairValues = valid('fair_values');
  const rated = await withTableRates(ctx, [
    ...valuations.map((v) => ({ money: storedMoney(v.post_money_valuation), date: v.date })),
    ...fairValues.map((v) => ({ money: storedMoney(v.fair_value), date: v.date })),
  ]);
  await writeOverrides(
    ctx,
    {
      ownerships,
      valuations: valuations.map((v, i) => ({
        company_id: v.company_id,
        date: v.date,
        post_money_valuation: rated[i]!,
      })),
      fairValues: fairValues.map((v, i) => ({
        company_id: v.company_id,
        fund_id: v.fund_id,
        date: v.date,
        fair_value: rated[valuations.length + i]!,
      })),
    },
    now,
  );
  return ownerships.length + valuations.length + fairValues.length;
}
