import { z } from 'zod';
import { CURRENCY_CODES } from '../../core/money.ts';

export const CurrencyCode = z.enum(CURRENCY_CODES).describe('ISO 4217 currency code.');
export type CurrencyCode = z.infer<typeof CurrencyCode>;
