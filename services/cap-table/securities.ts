import { nowIso, prefixedId } from '../../db/ids.ts';
import type { NewSecurity, ShareClassRef, StoredMoney } from '../../db/repos/cap-table.ts';
import { type ServiceContext, scopeOf } from '../changes.ts';
import {
  checkCompany,
  checkFund,
  checkMoney,
  fail,
  type Item,
  type ItemLists,
  type MoneyIn,
  rawId,
  rawIds,
  storedMoney,
  throwIfInvalid,
  visibleCompanies,
  withTableRates,
} from './items.ts';
import { writeSecurities } from './records.ts';

/** The security type each list of add_securities holds. */
export const SECURITY_TYPE = {
  certificates: 'certificate',
  warrants: 'warrant',
  convertibles: 'convertible',
  token_investments: 'token_investment',
  token_warrants: 'token_warrant',
  token_convertibles: 'token_convertible',
} as const;
export type SecurityKind = keyof typeof SECURITY_TYPE;
export const SECURITY_KINDS = Object.keys(SECURITY_TYPE) as SecurityKind[];

/** The money fields of each kind, and whether a value is required. */
const MONEY: Record<SecurityKind, [string, boolean][]> = {
  certificates: [['investment_amount', true]],
  warrants: [['exercise_price', true]],
  convertibles: [
    ['investment_amount', true],
    ['valuation_cap', false],
  ],
  token_investments: [
    ['investment_amount', true],
    ['price_per_token', true],
  ],
  token_warrants: [
    ['total_cost', true],
    ['exercise_price', true],
  ],
  token_convertibles: [['purchase_amount', true]],
};

type Refs = {
  financings: Map<string, { company_id: string }>;
  classes: Map<string, ShareClassRef>;
};

/** The rules on one item's round and share class: both of its company, and the class of that round. */
function checkRefs(kind: SecurityKind, item: Item<unknown>, companyId: string, refs: Refs): void {
  const financing = rawId(item, 'financing_id');
  if (financing !== null && refs.financings.get(financing)?.company_id !== companyId) {
    fail(
      item,
      'financing_id',
      `${financing} is not a financing of company ${companyId}; call get_financing_events with its company_ids for valid ids`,
    );
  }
  const shareClass = rawId(item, 'share_class_id');
  if (kind !== 'certificates' || shareClass === null) return;
  const ref = refs.classes.get(shareClass);
  if (ref?.company_id !== companyId) {
    fail(
      item,
      'share_class_id',
      `${shareClass} is not a share class of company ${companyId}; call get_share_classes with its company_ids for valid ids`,
    );
  } else if (financing !== null && ref.financing_id !== financing) {
    fail(
      item,
      'financing_id',
      `must be ${ref.financing_id}, the round of share class ${shareClass}, or null`,
    );
  }
}

/** Every rule of the request; the share classes it names. */
async function validate(ctx: ServiceContext, lists: ItemLists<SecurityKind>) {
  const scope = scopeOf(ctx);
  const all = lists.flatMap(([, items]) => items);
  const visible = await visibleCompanies(ctx, all);
  const funds = await ctx.repos.capTable.fundRefs(ctx.principal.firm.id, rawIds(all, 'fund_id'));
  const financings = await ctx.repos.capTable.financingRefs(scope, rawIds(all, 'financing_id'));
  const classes = await ctx.repos.capTable.shareClassRefs(scope, rawIds(all, 'share_class_id'));
  for (const [kind, items] of lists) {
    for (const item of items) {
      for (const [field, required] of MONEY[kind]) checkMoney(item, field, required);
      checkFund(item, funds);
      if (checkCompany(item, visible))
        checkRefs(kind, item, rawId(item, 'company_id')!, { financings, classes });
    }
  }
  throwIfInvalid(
    'securities',
    lists.map(([, items]) => items),
  );
  return classes;
}

/** The rows to insert, and each money amount with the row and field it belongs to. */
function rowsOf(lists: ItemLists<SecurityKind>, classes: Map<string, ShareClassRef>, now: string) {
  const rows: NewSecurity[] = [];
  const amounts: { row: number; field: string; money: StoredMoney; date: string }[] = [];
  for (const [kind, items] of lists) {
    for (const item of items as Item<Record<string, unknown>>[]) {
      const { issue_date, fund_id, company_id, financing_id, share_class_id, ...details } = item.ok!;
      const shareClass = typeof share_class_id === 'string' ? classes.get(share_class_id)! : null;
      for (const [field] of MONEY[kind]) {
        const money = details[field] as MoneyIn | null | undefined;
        if (money) {
          amounts.push({ row: rows.length, field, money: storedMoney(money), date: issue_date as string });
        } else details[field] = null;
      }
      if (shareClass) details.share_class_name = shareClass.name;
      rows.push({
        id: prefixedId('sec'),
        company_id: company_id as string,
        fund_id: fund_id as string,
        financing_id: (financing_id as string | null | undefined) ?? shareClass?.financing_id ?? null,
        share_class_id: shareClass?.id ?? null,
        type: SECURITY_TYPE[kind],
        issue_date: issue_date as string,
        details,
        created_at: now,
      });
    }
  }
  return { rows, amounts };
}

/**
 * Adds securities held by the firm's funds, all or none; each amount is recorded with the table rate
 * of its issue date. Returns the new ids of each list, in request order.
 */
export async function addSecurities(
  ctx: ServiceContext,
  lists: ItemLists<SecurityKind>,
): Promise<{ count: number; ids: Record<SecurityKind, string[]> }> {
  const classes = await validate(ctx, lists);
  const now = nowIso(ctx.clock.now());
  const { rows, amounts } = rowsOf(lists, classes, now);
  const rated = await withTableRates(ctx, amounts);
  amounts.forEach((a, i) => {
    rows[a.row]!.details[a.field] = rated[i];
  });
  await writeSecurities(ctx, rows, [], now);
  let next = 0;
  const ids = Object.fromEntries(
    lists.map(([kind, items]) => [kind, items.map(() => rows[next++]!.id)]),
  ) as Record<SecurityKind, string[]>;
  return { count: rows.length, ids };
}
