import { z } from 'zod';
import { upsertOverrides as upsertOverrideRecords } from '../../services/cap-table.ts';
import { defineTool } from '../define.ts';
import { decimalInput, MoneyInput } from '../schemas/money.ts';
import { optionalList as list, MAX_ITEMS, unpackLists } from './items.ts';

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
  routes: [
    { method: 'PUT', path: '/beta/investment/overrides/upsert/', summary: 'Upsert overrides', body: 'merge' },
  ],
  async handler(ctx, input) {
    const lists = unpackLists(input, LISTS, 'set', 'ownership, post-money valuation or fair value');
    const n = await upsertOverrideRecords(ctx, lists);
    return { message: `Set ${n} ${n === 1 ? 'override' : 'overrides'}.` };
  },
});
