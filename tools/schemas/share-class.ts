import { z } from 'zod';
import type { ShareClassRecord } from '../../db/repos/cap-table.ts';
import { MoneyAmount, type MoneyConverter } from './money.ts';

export const PURCHASE_TYPES = ['primary', 'secondary'] as const;

/** A share class as the service returns it (the reference ShareClassOut). */
export const ShareClassOut = z.object({
  id: z.string().describe('Share class id.'),
  company_id: z.string(),
  financing_id: z.string().describe('Financing round the share class was issued in.'),
  purchase_type: z.enum(PURCHASE_TYPES).describe('primary or secondary purchase.'),
  type: z.enum(['common', 'preferred']).describe('common or preferred shares.'),
  name: z.string(),
  price_per_share: MoneyAmount.describe("Price per share, converted at the round's closing date."),
  include_in_fair_value: z
    .boolean()
    .nullable()
    .describe('Whether the class counts in the fair value calculation.'),
  company_name: z.string(),
});
export type ShareClassOut = z.infer<typeof ShareClassOut>;

export function toShareClassOut(row: ShareClassRecord, fx: MoneyConverter): ShareClassOut {
  return {
    id: row.id,
    company_id: row.company_id,
    financing_id: row.financing_id,
    purchase_type: row.purchase_type as ShareClassOut['purchase_type'],
    type: row.type as ShareClassOut['type'],
    name: row.name,
    price_per_share: fx.amount(row.price_per_share, row.closing_date),
    include_in_fair_value: row.include_in_fair_value,
    company_name: row.company_name,
  };
}
