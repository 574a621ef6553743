import { z } from 'zod';
import {
  compare,
  type Decimal,
  div,
  mul,
  readDecimal,
  round,
  sign,
  sub,
  toText,
  ZERO,
} from '../../core/decimal.ts';
import { nowIso, prefixedId } from '../../db/ids.ts';
import type {
  NewSecurity,
  NewTransaction,
  SecurityRecord,
  ShareClassRef,
  StoredMoney,
  TransactionRecord,
} from '../../db/repos/cap-table.ts';
import { addSecurities as addSecurityRecords } from '../../services/cap-table.ts';
import type { ToolContext } from '../context.ts';
import { defineTool } from '../define.ts';
import { decimalInput, MoneyInput } from '../schemas/money.ts';
import { Transaction, toTransaction } from '../schemas/transaction.ts';
import {
  checkCompany,
  checkMoney,
  fail,
  type Item,
  lenient,
  MAX_ITEMS,
  rawId,
  rawIds,
  storedMoney,
  throwIfInvalid,
  unpackLists,
  withTableRates,
} from './items.ts';
import { convertedResults, resultsOf } from './shared.ts';

const common = {
  company_id: z.string().min(1).describe('Company (list_companies).'),
  date: z.iso.date({ error: 'must be a date YYYY-MM-DD' }).describe('YYYY-MM-DD.'),
  security_id: z.string().min(1).describe('The security transacted (get_securities).'),
};
const intoClass = z
  .string()
  .min(1)
  .describe("The company's share class of the new certificate (get_share_classes).");

const Exercise = z.object({ ...common, converted_to_share_class_id: intoClass });
const Conversion = z.object({ ...common, converted_to_share_class_id: intoClass });
const Sale = z.object({
  ...common,
  cash_received: MoneyInput.describe('Proceeds of the sale.'),
  shares_sold: decimalInput('positive').describe('Shares (or tokens) sold, more than 0.'),
});

const LISTS = ['sales', 'conversions', 'exercises'] as const;
type List = (typeof LISTS)[number];

/** Which kinds of security each transaction applies to. */
const APPLIES_TO: Record<List, readonly string[]> = {
  exercises: ['warrant'],
  conversions: ['convertible'],
  sales: ['certificate', 'public_equity', 'token_investment'],
};

const list = <T extends z.ZodType>(item: T, description: string) =>
  z
    .array(lenient(item))
    .max(MAX_ITEMS, { error: `must hold at most ${MAX_ITEMS} items` })
    .default([])
    .describe(description);

type Details = Record<string, unknown>;

function detailMoney(details: Details, field: string): StoredMoney | null {
  const m = details[field] as Partial<StoredMoney> | null | undefined;
  if (!m || m.value === null || m.value === undefined || !m.currency) return null;
  return {
    value: String(m.value),
    currency: m.currency,
    fx_rate: m.fx_rate ?? null,
    is_custom_rate: m.is_custom_rate ?? false,
  };
}

function held(s: SecurityRecord): Decimal | null {
  const v = s.details.shares ?? s.details.quantity;
  return typeof v === 'string' || typeof v === 'number' ? readDecimal(String(v)) : null;
}

/** Money scaled by a factor, to cents at least (the cost of part of a holding). */
function scaled(money: StoredMoney, factor: Decimal): StoredMoney {
  const value = readDecimal(money.value!)!;
  return { ...money, value: toText(round(mul(value, factor), Math.max(2, value.scale))) };
}

/**
 * Shares a convertible converts into: its principal over the class price less the discount, or over
 * the cap price (valuation cap / the round's fully diluted shares) when that is lower.
 */
function conversionShares(s: SecurityRecord, into: ShareClassRef): { shares: string } | { error: string } {
  const principal = detailMoney(s.details, 'investment_amount');
  const price = into.price_per_share;
  if (!principal || price.value === null || sign(readDecimal(price.value)!) <= 0) {
    return { error: `share class ${into.id} has no price per share to convert at` };
  }
  if (price.currency !== principal.currency) {
    return {
      error: `share class ${into.id} is priced in ${price.currency}, the convertible in ${principal.currency}`,
    };
  }
  const discount = typeof s.details.discount === 'string' ? readDecimal(s.details.discount) : null;
  let at = readDecimal(price.value)!;
  if (discount) at = mul(at, sub(readDecimal('1')!, discount));
  const cap = detailMoney(s.details, 'valuation_cap');
  const fds = into.fully_diluted_shares === null ? null : readDecimal(into.fully_diluted_shares);
  if (cap && cap.currency === principal.currency && fds && sign(fds) > 0) {
    const capPrice = div(readDecimal(cap.value!)!, fds, 10);
    if (sign(capPrice) > 0 && compare(capPrice, at) < 0) at = capPrice;
  }
  if (sign(at) <= 0) return { error: `the conversion price into share class ${into.id} is 0` };
  const shares = toText(div(readDecimal(principal.value!)!, at, 6)).split('.')[0]!;
  return { shares };
}

/** What each security has left: gone once exercised or converted, fewer shares after a sale. */
function holdings(securities: ReadonlyMap<string, SecurityRecord>, past: readonly TransactionRecord[]) {
  const gone = new Set(past.filter((t) => t.event !== 'sale').map((t) => t.input_security_id));
  const remaining = new Map<string, Decimal>();
  for (const s of securities.values()) {
    let left = held(s) ?? ZERO;
    for (const t of past) {
      if (t.event === 'sale' && t.input_security_id === s.id && t.shares)
        left = sub(left, readDecimal(t.shares)!);
    }
    remaining.set(s.id, left);
  }
  return { gone, remaining };
}

/** Every rule of the request that needs the database; the securities and share classes it names. */
async function validate(ctx: ToolContext, lists: (readonly [List, Item<unknown>[]])[], all: Item<unknown>[]) {
  const scope = ctx.principal.scope;
  const visible = await ctx.repos.companies.names(scope, rawIds(all, 'company_id'));
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
  const { gone, remaining } = holdings(securities, past);

  const shares = new Map<Item<unknown>, string>();
  for (const [kind, items] of lists) {
    for (const item of items) {
      if (kind === 'sales') checkMoney(item, 'cash_received', true);
      if (!checkCompany(item, visible)) continue;
      const companyId = rawId(item, 'company_id')!;
      const securityId = rawId(item, 'security_id');
      const security = securityId === null ? undefined : securities.get(securityId);
      if (securityId !== null && security?.company_id !== companyId) {
        fail(
          item,
          'security_id',
          `${securityId} is not a security of company ${companyId}; call get_securities with its company_ids for valid ids`,
        );
      }
      const classId = rawId(item, 'converted_to_share_class_id');
      const into = classId === null ? undefined : classes.get(classId);
      if (classId !== null && into?.company_id !== companyId) {
        fail(
          item,
          'converted_to_share_class_id',
          `${classId} is not a share class of company ${companyId}; call get_share_classes with its company_ids for valid ids`,
        );
      }
      if (!security || security.company_id !== companyId) continue;
      if (!APPLIES_TO[kind].includes(security.type)) {
        fail(item, 'security_id', `is a ${security.type}; ${kind} apply to ${APPLIES_TO[kind].join(', ')}`);
        continue;
      }
      if (gone.has(security.id)) {
        fail(item, 'security_id', `${security.id} was already exercised or converted`);
        continue;
      }
      const day = item.raw?.date;
      if (typeof day === 'string' && day < security.issue_date) {
        fail(item, 'date', `must be on or after the security's issue date ${security.issue_date}`);
      }
      if (kind === 'sales') {
        const sold = item.ok ? readDecimal((item.ok as z.output<typeof Sale>).shares_sold) : null;
        const left = remaining.get(security.id)!;
        if (sold && compare(sold, left) > 0) {
          fail(item, 'shares_sold', `is more than the ${toText(left)} left of security ${security.id}`);
        } else if (sold) remaining.set(security.id, sub(left, sold));
      } else {
        // Exercised or converted once, even within one request.
        gone.add(security.id);
        if (kind === 'exercises') {
          const count = held(security);
          if (count) shares.set(item, toText(count));
        } else if (into && into.company_id === companyId) {
          const result = conversionShares(security, into);
          if ('error' in result) fail(item, 'converted_to_share_class_id', result.error);
          else shares.set(item, result.shares);
        }
      }
    }
  }
  throwIfInvalid(
    'transactions',
    lists.map(([, items]) => items),
  );
  return { securities, classes, shares };
}

/** The transactions to insert, and the certificates conversions and exercises create. */
function rowsOf(
  lists: (readonly [List, Item<unknown>[]])[],
  checked: Awaited<ReturnType<typeof validate>>,
  now: string,
) {
  const { securities, classes, shares } = checked;
  const newSecurities: NewSecurity[] = [];
  const transactions: NewTransaction[] = [];
  const none: StoredMoney = { value: null, currency: null, fx_rate: null, is_custom_rate: null };
  for (const [kind, items] of lists) {
    for (const item of items) {
      const t = item.ok as z.output<typeof Sale> & { converted_to_share_class_id?: string };
      const security = securities.get(t.security_id)!;
      if (kind === 'sales') {
        const cost = detailMoney(security.details, 'investment_amount');
        const total = held(security);
        const sold = readDecimal(t.shares_sold)!;
        transactions.push({
          id: prefixedId('txn'),
          company_id: t.company_id,
          input_security_id: security.id,
          output_security_id: null,
          date: t.date,
          event: 'sale',
          shares: t.shares_sold,
          // The cost of the shares sold, as the seeded sales record it.
          investment_amount: cost && total && sign(total) > 0 ? scaled(cost, div(sold, total, 12)) : none,
          proceeds: storedMoney(t.cash_received),
          created_at: now,
        });
        continue;
      }
      const into = classes.get(t.converted_to_share_class_id!)!;
      const count = shares.get(item) ?? null;
      const cost =
        kind === 'exercises'
          ? (() => {
              const price = detailMoney(security.details, 'exercise_price');
              return price && count ? scaled(price, readDecimal(count)!) : none;
            })()
          : (detailMoney(security.details, 'investment_amount') ?? none);
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
      newSecurities.push(output);
      transactions.push({
        id: prefixedId('txn'),
        company_id: t.company_id,
        input_security_id: security.id,
        output_security_id: output.id,
        date: t.date,
        event: kind === 'exercises' ? 'exercise' : 'conversion',
        shares: count,
        investment_amount: cost,
        proceeds: none,
        created_at: now,
      });
    }
  }
  return { newSecurities, transactions };
}

export const addTransactions = defineTool({
  name: 'add_transactions',
  title: 'Add cap table transactions',
  description:
    `Records sales, conversions of convertibles and exercises of warrants, up to ${MAX_ITEMS} of each, all or ` +
    'none; a conversion or exercise creates its certificate. A 400 names each offending field as sales[i].field. ' +
    'Needs the cap-table permission.',
  input: z.object({
    sales: list(Sale, 'Sales of certificates, public equity or tokens.'),
    conversions: list(Conversion, 'Conversions of convertibles.'),
    exercises: list(Exercise, 'Exercises of warrants.'),
  }),
  output: resultsOf(Transaction),
  annotations: { readOnlyHint: false, destructiveHint: true, idempotentHint: false, openWorldHint: false },
  permission: 'cap_table',
  write: true,
  async handler(ctx, input) {
    const { lists, all } = unpackLists(
      input as Record<(typeof LISTS)[number], unknown[]>,
      LISTS,
      'add',
      'sale, conversion or exercise',
    );
    const checked = await validate(ctx, lists, all);
    const scope = ctx.principal.scope;
    const now = nowIso(ctx.clock.now());
    const { newSecurities, transactions } = rowsOf(lists, checked, now);
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
    await addSecurityRecords(ctx, newSecurities, transactions, now);

    const created = await ctx.repos.capTable.transactions(scope, {
      transactionIds: transactions.map((t) => t.id),
    });
    const byId = new Map(created.map((r) => [r.id, r]));
    return convertedResults(
      ctx,
      transactions.map((t) => byId.get(t.id)!),
      true,
      {
        amounts: (r) => [
          { money: r.investment_amount, date: r.date },
          { money: r.proceeds, date: r.date },
        ],
        out: toTransaction,
      },
    );
  },
});
