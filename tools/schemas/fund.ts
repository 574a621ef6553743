import { z } from 'zod';
import type { FundRow } from '../../db/repos/funds.ts';

export const Fund = z.object({
  id: z.string().describe('Fund identifier.'),
  name: z.string(),
  size: z.string().describe('Fund size as a decimal string, in the fund currency.'),
  vintage: z.number().int().describe('Vintage year.'),
  currency: z.string().describe('Fund currency (ISO 4217).'),
});
export type Fund = z.infer<typeof Fund>;

export function toFund(row: FundRow): Fund {
  return { id: row.id, name: row.name, size: row.size, vintage: row.vintage, currency: row.currency };
}
