import { nowIso, prefixedId } from '../../db/ids.ts';
import type { NewShareClass, ShareClassRecord } from '../../db/repos/cap-table.ts';
import { type ServiceContext, scopeOf } from '../changes.ts';
import {
  checkCompany,
  checkMoney,
  fail,
  type Item,
  type MoneyIn,
  rawId,
  rawIds,
  storedMoney,
  throwIfInvalid,
  visibleCompanies,
  withTableRates,
} from './items.ts';
import { writeShareClasses } from './records.ts';

/** A share class as add_share_classes takes it, parsed. */
export interface ShareClassIn {
  company_id: string;
  financing_id: string;
  purchase_type: string;
  type: string;
  name: string;
  price_per_share: MoneyIn;
  include_in_fair_value?: boolean | null | undefined;
}

/**
 * Adds share classes to financing rounds of companies the caller can access, all or none; the price
 * is recorded with the table rate of the round's closing date. Returns the stored classes in request order.
 */
export async function addShareClasses(
  ctx: ServiceContext,
  items: Item<ShareClassIn>[],
): Promise<ShareClassRecord[]> {
  const scope = scopeOf(ctx);
  const visible = await visibleCompanies(ctx, items);
  const rounds = await ctx.repos.capTable.financingRefs(scope, rawIds(items, 'financing_id'));
  for (const item of items) {
    checkMoney(item, 'price_per_share', false);
    const companyOk = checkCompany(item, visible);
    const financingId = rawId(item, 'financing_id');
    if (financingId !== null && (companyOk || rawId(item, 'company_id') === null)) {
      const round = rounds.get(financingId);
      if (!round || (companyOk && round.company_id !== rawId(item, 'company_id'))) {
        fail(
          item,
          'financing_id',
          `${financingId} is not a financing of company ${rawId(item, 'company_id') ?? '?'}; ` +
            'call get_financing_events with its company_ids for valid ids',
        );
      }
    }
  }
  throwIfInvalid('share classes', [items]);

  const now = nowIso(ctx.clock.now());
  const valid = items.map((i) => i.ok!);
  const prices = await withTableRates(
    ctx,
    valid.map((s) => ({
      money: storedMoney(s.price_per_share),
      date: rounds.get(s.financing_id)!.closing_date,
    })),
  );
  const rows: NewShareClass[] = valid.map((s, i) => ({
    id: prefixedId('shc'),
    company_id: s.company_id,
    financing_id: s.financing_id,
    purchase_type: s.purchase_type,
    type: s.type,
    name: s.name,
    price_per_share: prices[i]!,
    include_in_fair_value: s.include_in_fair_value ?? s.purchase_type === 'primary',
    created_at: now,
  }));
  await writeShareClasses(ctx, rows, now);
  const created = await ctx.repos.capTable.shareClasses(scope, { shareClassIds: rows.map((r) => r.id) });
  const byId = new Map(created.map((r) => [r.id, r]));
  return rows.map((r) => byId.get(r.id)!);
}
