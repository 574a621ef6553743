import { z } from 'zod';
import { addTransactions as addTransactionRecords } from '../../services/cap-table.ts';
import { defineTool } from '../define.ts';
import { decimalInput, MoneyInput } from '../schemas/money.ts';
import { Transaction, toTransaction } from '../schemas/transaction.ts';
import { optionalList as list, MAX_ITEMS, unpackLists } from './items.ts';
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
  routes: [
    {
      method: 'POST',
      path: '/beta/investment/transactions/add/',
      summary: 'Add transactions',
      body: 'merge',
      envelope: 'results',
      status: 201,
    },
  ],
  async handler(ctx, input) {
    const lists = unpackLists(input, LISTS, 'add', 'sale, conversion or exercise');
    const created = await addTransactionRecords(ctx, lists);
    return convertedResults(ctx, created, true, {
      amounts: (r) => [
        { money: r.investment_amount, date: r.date },
        { money: r.proceeds, date: r.date },
      ],
      out: toTransaction,
    });
  },
});
