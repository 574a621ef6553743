import { z } from 'zod';
import { defineTool, readOnly } from '../define.ts';
import { TRANSACTION_EVENTS, Transaction, toTransaction } from '../schemas/transaction.ts';
import { idsFilter, listFilter, pagedResults, pageOf, readFilter } from './shared.ts';

export const getTransactions = defineTool({
  name: 'get_transactions',
  title: 'Get cap table transactions',
  description:
    "Cap-table transactions you can see (exercises, conversions, sales) by date: shares moved, amount invested, proceeds (also in the firm's currency).",
  input: readFilter({
    transaction_ids: idsFilter('transaction', 'from get_transactions'),
    event: z.enum(TRANSACTION_EVENTS).nullish().describe('Only exercise, conversion or sale transactions.'),
    input_security_id: z
      .string()
      .min(1)
      .nullish()
      .describe('Only transactions of this security (the one transacted; id from get_securities).'),
    output_security_id: z
      .string()
      .min(1)
      .nullish()
      .describe('Only transactions that created this security (id from get_securities).'),
  }),
  output: pageOf(Transaction),
  annotations: readOnly,
  routes: [
    {
      method: 'POST',
      path: '/beta/investment/transactions/get/',
      summary: 'Get transactions',
      body: 'merge',
      envelope: 'results',
    },
  ],
  async handler(ctx, input) {
    const rows = await ctx.repos.capTable.transactions(ctx.principal.scope, {
      companyIds: listFilter(input.company_ids),
      transactionIds: listFilter(input.transaction_ids),
      event: input.event ?? undefined,
      inputSecurityId: input.input_security_id ?? undefined,
      outputSecurityId: input.output_security_id ?? undefined,
    });
    return pagedResults(ctx, rows, input, {
      amounts: (r) => [
        { money: r.investment_amount, date: r.date },
        { money: r.proceeds, date: r.date },
      ],
      out: toTransaction,
    });
  },
});
