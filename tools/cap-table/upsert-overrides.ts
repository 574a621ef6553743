import { z } from 'zod';
import { nowIso } from '../../db/ids.ts';
import { upsertOverrides as upsertOverrideRecords } from '../../services/cap-table.ts';
import { defineTool } from '../define.ts';
import { decimalInput, MoneyInput } from '../schemas/money.ts';
import {
  checkCompany,
  checkFund,
  checkMoney,
  lenient,
  MAX_ITEMS,
  rawIds,
  storedMoney,
  throwIfInvalid,
  unpackLists,
  withTableRates,
} from './items.ts';

const date = z.iso.date({ error: 'must be a date YYYY-MM-DD' }).describe('Date it applies from, YYYY-MM-DD.');
const companyId = z.string().min(1).describe('Company (list_companies).');
const fundId = z.string().min(1).describe('Fund (list_funds).');

const Ownership = z.object({
  date,
  company_id: companyId,
  fund_id: fundId,
  ownership_percentage: decimalInput('nonNegative')
    .refine((v) => Number(v) <= 1, { error: 'must be a fraction from 0 to 1 (0.1 = 10 %)' })
    .describe('A fraction from 0 to 1.'),
});
const PostMoneyValuation = z.object({
  date,
  company_id: companyId,
  post_money_valuation: MoneyInput.describe('The post-money valuation.'),
});
const FairValue = z.object({
  date,
  company_id: companyId,
  fund_id: fundId,
  fair_value: MoneyInput.describe('0 writes the position off.'),
});

const LISTS = ['ownerships', 'post_money_valuations', 'fair_values'] as const;
const MONEY: Record<(typeof LISTS)[number], string | null> = {
  ownerships: null,
  post_money_valuations: 'post_money_valuation',
  fair_values: 'fair_value',
};

const list = <T extends z.ZodType>(item: T, description: string) =>
  z
    .array(lenient(item))
    .max(MAX_ITEMS, { error: `must hold at most ${MAX_ITEMS} items` })
    .default([])
    .describe(description);

export const upsertOverrides = defineTool({
  name: 'upsert_overrides',
  title: 'Set ownership, post-money valuation and fair value overrides',
  description:
    "Sets a fund's ownership or fair value of a company, or a company's post-money valuation, from a date " +
    '(replacing one of that date); get_investment_metrics reports the latest instead of the computed figure. Up ' +
    `to ${MAX_ITEMS} of each, all or none; a 400 names each offending field. Needs the cap-table permission.`,
  input: z.object({
    ownerships: list(Ownership, 'Ownerships.'),
    post_money_valuations: list(PostMoneyValuation, 'Post-money valuations.'),
    fair_values: list(FairValue, 'Fair values.'),
  }),
  output: z.object({ message: z.string().describe('What was set.') }),
  annotations: { readOnlyHint: false, destructiveHint: true, idempotentHint: true, openWorldHint: false },
  permission: 'cap_table',
  write: true,
  async handler(ctx, input) {
    const { lists, all } = unpackLists(
      input as Record<(typeof LISTS)[number], unknown[]>,
      LISTS,
      'set',
      'ownership, post-money valuation or fair value',
    );
    const scope = ctx.principal.scope;
    const visible = await ctx.repos.companies.names(scope, rawIds(all, 'company_id'));
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
    const ownerships = input.ownerships as z.output<typeof Ownership>[];
    const valuations = input.post_money_valuations as z.output<typeof PostMoneyValuation>[];
    const fairValues = input.fair_values as z.output<typeof FairValue>[];
    const rated = await withTableRates(ctx, [
      ...valuations.map((v) => ({ money: storedMoney(v.post_money_valuation), date: v.date })),
      ...fairValues.map((v) => ({ money: storedMoney(v.fair_value), date: v.date })),
    ]);
    await upsertOverrideRecords(
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
    const n = ownerships.length + valuations.length + fairValues.length;
    return { message: `Set ${n} ${n === 1 ? 'override' : 'overrides'}.` };
  },
});
