// The inputs and output fields the analytics tools share; the figures themselves are computed in analytics/.
import { z } from 'zod';
import { FxRateUsed } from '../../analytics/figure.ts';
import { PERIOD_UNITS } from '../../analytics/periods.ts';
import type { CompanyData } from '../../analytics/series.ts';

export const companyIdInput = z.string().min(1).describe('Company id.');

/** The `months` input: 1 to 120, default 12; what it bounds differs per tool. */
export function monthsInput(description: string) {
  return z.number().int().min(1).max(120).default(12).describe(description);
}

/** How the money of a result came to be in one currency; follows its `currency` field. */
export const conversionOutput = {
  currency_note: z.string().describe('Whether money is as reported or converted, and how.'),
  fx_rates_used: z.array(FxRateUsed).describe('Rates applied when money was converted.'),
};

/** The `currency`, `currency_note` and `fx_rates_used` of a result. */
export function conversionOf(data: CompanyData) {
  return { currency: data.currency, currency_note: data.currencyNote, fx_rates_used: data.fxRatesUsed };
}

export function periodInput(description: string) {
  return z.enum(PERIOD_UNITS).default('month').describe(description);
}
