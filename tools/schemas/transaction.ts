import { z } from 'zod';
import type { TransactionRecord } from '../../db/repos/cap-table.ts';
import { MoneyAmount, type MoneyConverter } from './money.ts';

export const TRANSACTION_EVENTS = ['exercise', 'conversion', 'sale'] as const;

/** A transaction from one security to another (the reference Transaction). */
export const Transaction = z.object({
  id: z.string().describe('Transaction id.'),
  company_id: z.string(),
  company_name: z.string(),
  input_security_id: z.string().nullable().describe('Security that was transacted.'),
  output_security_id: z.string().nullable().describe('Security created by the transaction.'),
  date: z.string().describe('Transaction date, YYYY-MM-DD.'),
  event: z.enum(TRANSACTION_EVENTS).describe('exercise, conversion or sale.'),
  shares: z.string().nullable().describe('Shares transferred or sold, decimal string.'),
  investment_amount: MoneyAmount.describe('Money invested in the transaction, converted at its date.'),
  proceeds: MoneyAmount.nullable().describe('Money received from the transaction, converted at its date.'),
});
export type Transaction = z.infer<typeof Transaction>;

export function toTransaction(row: TransactionRecord, fx: MoneyConverter): Transaction {
  return {
    id: row.id,
    company_id: row.company_id,
    company_name: row.company_name,
    input_security_id: row.input_security_id,
    output_security_id: row.output_security_id,
    date: row.date,
    event: row.event as Transaction['event'],
    shares: row.shares,
    investment_amount: fx.amount(row.investment_amount, row.date),
    proceeds: fx.optionalAmount(row.proceeds, row.date),
  };
}
