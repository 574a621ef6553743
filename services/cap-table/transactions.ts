import { compare, div, readDecimal, sign, sub, toText } from '../../core/decimal.ts';
import { nowIso, prefixedId } from '../../db/ids.ts';
import type {
  NewSecurity,
  NewTransaction,
  SecurityRecord,
  ShareClassRef,
  StoredMoney,
  TransactionRecord,
} from '../../db/repos/cap-table.ts';
import { type ServiceContext, scopeOf } from '../changes.ts';
import { conversionShares, detailMoney, held, holdings, scaled } from './holdings.ts';
import {
  checkCompany,
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

export type TransactionKind = 'sales' | 'conversions' | 'exercises';

/** A transaction as add_transactions takes it, parsed (a sale has cash and shares, the others a class). */
export interface TransactionIn {
  company_id: string;
  date: string;
  security_id: string;
  cash_received?: MoneyIn;
  shares_sold?: string;
  converted_to_share_class_id?: string;
}

/** Which kinds of security each transaction applies to. */
const APPLIES_TO: Record<TransactionKind, readonly string[]> = {
  exercises: ['warrant'],
  conversions: ['convertible'],
  sales: ['certificate', 'public_equity', 'token_investment'],
};

/** What the checks of a request know: the securities and classes it names, and what each holds. */
interface State extends ReturnType<typeof holdings> {
  securities: Map<string, SecurityRecord>;
  classes: Map<string, ShareClassRef>;
  /** The shares of the certificate each conversion or exercise creates. */
  shares: Map<Item<unknown>, string>;
}

/** The references of an item: a security and a share class of its company; the security, when it is. */
function checkRefs(item: Item<unknown>, companyId: string, state: State): SecurityRecord | undefined {
  const securityId = rawId(item, 'security_id');
  const security = securityId === null ? undefined : state.securities.get(securityId);
  if (securityId !== null && security?.company_id !== companyId) {
    fail(
      item,
      'security_id',
      `${securityId} is not a security of company ${companyId}; call get_securities with its company_ids for valid ids`,
    );
  }
  const classId = rawId(item, 'converted_to_share_class_id');
  const into = classId === null ? undefined : state.classes.get(classId);
  if (classId !== null && into?.company_id !== companyId) {
    fail(
      item,
      'converted_to_share_class_id',
      `${classId} is not a share class of company ${companyId}; call get_share_classes with its company_ids for valid ids`,
    );
  }
  return security?.company_id === companyId ? security : undefined;
}

/** The rules of one transaction on its security: its kind, what is left of it, the shares it makes. */
function checkOn(kind: TransactionKind, item: Item<unknown>, security: SecurityRecord, state: State): void {
  if (!APPLIES_TO[kind].includes(security.type)) {
    fail(item, 'security_id', `is a ${security.type}; ${kind} apply to ${APPLIES_TO[kind].join(', ')}`);
    return;
  }
  if (state.gone.has(security.id)) {
    fail(item, 'security_id', `${security.id} was already exercised or converted`);
    return;
  }
  const day = item.raw?.date;
  if (typeof day === 'string' && day < security.issue_date) {
    fail(item, 'date', `must be on or after the security's issue date ${security.issue_date}`);
  }
  if (kind === 'sales') {
    const sold = item.ok ? readDecimal((item.ok as TransactionIn).shares_sold!) : null;
    const left = state.remaining.get(security.id)!;
    if (sold && compare(sold, left) > 0) {
      fail(item, 'shares_sold', `is more than the ${toText(left)} left of security ${security.id}`);
    } else if (sold) state.remaining.set(security.id, sub(left, sold));
    return;
  }
  // Exercised or converted once, even within one request.
  state.gone.add(security.id);
  if (kind === 'exercises') {
    const count = held(security);
    if (count) state.shares.set(item, toText(count));
    return;
  }
  const into = state.classes.get(rawId(item, 'converted_to_share_class_id') ?? '');
  if (into && into.company_id === security.company_id) {
    const result = conversionShares(security, into);
    if ('error' in result) fail(item, 'converted_to_share_class_id', result.error);
    else state.shares.set(item, result.shares);
  }
}

/** Every rule of the request that needs the database; the securities and share classes it names. */
async function validate(ctx: ServiceContext, lists: ItemLists<TransactionKind>): Promise<State> {
  const scope = scopeOf(ctx);
  const all = lists.flatMap(([, items]) => items);
  const visible = await visibleCompanies(ctx, all);
  const securityIds = rawIds(all, 'security_id');
  const securities = new Map(
    (securityIds.length > 0 ? await ctx.repos.capTable.securities(scope, { securityIds }) : []).map((s) => [
      s.id,
      s,
    ]),
  );
  const classes = await ctx.repos.capTable.shareClassRefs(scope, rawIds(all, 'converted_to_share_class_id'));
  const past =
    securities.size > 0
      ? await ctx.repos.capTable.transactions(scope, { inputSecurityIds: [...securities.keys()] })
      : [];
  const state: State = { securities, classes, shares: new Map(), ...holdings(securities, past) };
  for (const [kind, items] of lists) {
    for (const item of items) {
      if (kind === 'sales') checkMoney(item, 'cash_received', true);
      if (!checkCompany(item, visible)) continue;
      const security = checkRefs(item, rawId(item, 'company_id')!, state);
      if (security) checkOn(kind, item, security, state);
    }
  }
  throwIfInvalid(
    'transactions',
    lists.map(([, items]) => items),
  );
  return state;
}

const NONE: StoredMoney = { value: null, currency: null, fx_rate: null, is_custom_rate: null };

/** A sale's row; its investment amount is the cost of the shares sold, as the seeded sales record it. */
function saleRow(t: TransactionIn, security: SecurityRecord, now: string): NewTransaction {
  const cost = detailMoney(security.details, 'investment_amount');
  const total = held(security);
  const sold = readDecimal(t.shares_sold!)!;
  return {
    id: prefixedId('txn'),
    company_id: t.company_id,
    input_security_id: security.id,
    output_security_id: null,
    date: t.date,
    event: 'sale',
    shares: t.shares_sold!,
    investment_amount: cost && total && sign(total) > 0 ? scaled(cost, div(sold, total, 12)) : NONE,
    proceeds: storedMoney(t.cash_received),
    created_at: now,
  };
}

/** A conversion's or exercise's row and the certificate it creates. */
function conversionRows(
  kind: 'conversions' | 'exercises',
  t: TransactionIn,
  security: SecurityRecord,
  into: ShareClassRef,
  count: string | null,
  now: string,
): [NewSecurity, NewTransaction] {
  const price = detailMoney(security.details, 'exercise_price');
  const cost =
    kind === 'exercises'
      ? price && count
        ? scaled(price, readDecimal(count)!)
        : NONE
      : (detailMoney(security.details, 'investment_amount') ?? NONE);
  const output: NewSecurity = {
    id: prefixedId('sec'),
    company_id: t.company_id,
    fund_id: security.fund_id,
    financing_id: into.financing_id,
    share_class_id: into.id,
    type: 'certificate',
    issue_date: t.date,
    details: { investment_amount: cost, shares: count, share_class_name: into.name },
    created_at: now,
  };
  const transaction: NewTransaction = {
    id: prefixedId('txn'),
    company_id: t.company_id,
    input_security_id: security.id,
    output_security_id: output.id,
    date: t.date,
    event: kind === 'exercises' ? 'exercise' : 'conversion',
    shares: count,
    investment_amount: cost,
    proceeds: NONE,
    created_at: now,
  };
  return [output, transaction];
}

/** The transactions to insert, and the certificates conversions and exercises create. */
function rowsOf(lists: ItemLists<TransactionKind>, state: State, now: string) {
  const newSecurities: NewSecurity[] = [];
  const transactions: NewTransaction[] = [];
  for (const [kind, items] of lists) {
    for (const item of items) {
      const t = item.ok as TransactionIn;
      const security = state.securities.get(t.security_id)!;
      if (kind === 'sales') {
        transactions.push(saleRow(t, security, now));
        continue;
      }
      const into = state.classes.get(t.converted_to_share_class_id!)!;
      const [output, transaction] = conversionRows(
        kind,
        t,
        security,
        into,
        state.shares.get(item) ?? null,
        now,
      );
      newSecurities.push(output);
      transactions.push(transaction);
    }
  }
  return { newSecurities, transactions };
}

/**
 * Records sales, conversions and exercises, all or none; a conversion or exercise creates its
 * certificate. Amounts are recorded with the table rate of the transaction date. Returns the stored
 * transactions in request order (sales, conversions, exercises).
 */
export async function addTransactions(
  ctx: ServiceContext,
  lists: ItemLists<TransactionKind>,
): Promise<TransactionRecord[]> {
  const state = await validate(ctx, lists);
  const now = nowIso(ctx.clock.now());
  const { newSecurities, transactions } = rowsOf(lists, state, now);
  const rated = await withTableRates(
    ctx,
    transactions.flatMap((t) => [
      { money: t.investment_amount, date: t.date },
      { money: t.proceeds, date: t.date },
    ]),
  );
  transactions.forEach((t, i) => {
    t.investment_amount = rated[2 * i]!;
    t.proceeds = rated[2 * i + 1]!;
  });
  await writeSecurities(ctx, newSecurities, transactions, now);
  const created = await ctx.repos.capTable.transactions(scopeOf(ctx), {
    transactionIds: transactions.map((t) => t.id),
  });
  const byId = new Map(created.map((r) => [r.id, r]));
  return transactions.map((t) => byId.get(t.id)!);
}
