import { z } from 'zod';
import {
  decimalDigitsProblem,
  decimalFromNumber,
  isNegativeDecimal,
  isZeroDecimal,
  normalizeDecimal,
} from '../../core/decimal.ts';
import type { StoredMoney } from '../../db/repos/cap-table.ts';
import { type DatedMoney, hasAmount, loadRates, RateTable } from '../../services/rates.ts';
import type { ToolContext } from '../context.ts';
import { CurrencyCode } from './currency.ts';

/**
 * A number or a numeric string, kept as an exact decimal string (`1.50` stays `1.50`; a JSON number
 * is written out without an exponent). `nonNegative` rejects values below 0, `positive` also 0.
 */
export function decimalInput(bound: 'any' | 'nonNegative' | 'positive' = 'any') {
  return z
    .union([z.number(), z.string()], {
      error: (issue) =>
        issue.input === undefined
          ? 'is required'
          : 'must be a number or a numeric string such as "1500000.00"',
    })
    .transform((raw, ctx) => {
      const text = typeof raw === 'number' ? decimalFromNumber(raw) : normalizeDecimal(raw);
      if (text === null) {
        ctx.addIssue({
          code: 'custom',
          message:
            'must be a plain decimal number such as 1500000 or "1500000.00" (no exponent or separators)',
        });
        return z.NEVER;
      }
      const digits = decimalDigitsProblem(text);
      if (digits) {
        ctx.addIssue({ code: 'custom', message: digits });
        return z.NEVER;
      }
      if (bound !== 'any' && isNegativeDecimal(text)) {
        ctx.addIssue({ code: 'custom', message: 'must be 0 or more' });
        return z.NEVER;
      }
      if (bound === 'positive' && isZeroDecimal(text)) {
        ctx.addIssue({ code: 'custom', message: 'must be greater than 0' });
        return z.NEVER;
      }
      return text;
    });
}

/** A money amount as a caller sends it; the read-only fields of the reference shape are ignored. */
export const MoneyInput = z.object({
  value: decimalInput('nonNegative')
    .nullable()
    .describe('Amount in `currency`: a number or a numeric string, kept exactly as a decimal string.'),
  currency: CurrencyCode.nullish().describe('Currency of value; required when value is set.'),
  fx_rate: decimalInput('positive')
    .nullish()
    .describe(
      "Optional custom rate from currency into the firm's preferred currency; used instead of the firm's FX " +
        'table, and the amount is marked is_custom_rate.',
    ),
});
export type MoneyInput = z.output<typeof MoneyInput>;

/** A money amount as the service returns it. */
export const MoneyAmount = z.object({
  value: z.string().nullable().describe('Amount in the source currency, as an exact decimal string.'),
  currency: z.string().nullable().describe('Source currency (ISO 4217).'),
  converted_value: z
    .string()
    .nullable()
    .describe("value in the firm's preferred currency; null when no exchange rate is known."),
  converted_currency: z.string().nullable().describe("The firm's preferred currency."),
  fx_rate: z
    .number()
    .nullable()
    .optional()
    .describe(
      'Rate from currency into converted_currency (only with include_fx_details): the custom rate, else the ' +
        "latest rate of the firm's table on or before the relevant date; 1 in the same currency; null when unknown.",
    ),
  is_custom_rate: z
    .boolean()
    .nullable()
    .optional()
    .describe('True when fx_rate was supplied with the amount rather than taken from the FX table.'),
});
export type MoneyAmount = z.infer<typeof MoneyAmount>;

/**
 * An exchange rate as every result gives it: a JSON number, as the v1 metrics answer (Datum.fx_rate)
 * fixes it; rates are kept as exact decimal strings and only listed as numbers.
 */
export function rateNumber(rate: string | null): number | null {
  return rate === null ? null : Number(rate);
}

export type { DatedMoney } from '../../services/rates.ts';

/**
 * Converts stored amounts into the firm's preferred currency. Built once per request with every
 * rate the request needs, so a whole cap table costs one batch of rate look-ups.
 */
export class MoneyConverter extends RateTable {
  constructor(
    preferred: string,
    table: Map<string, string>,
    private readonly includeFxDetails: boolean,
  ) {
    super(preferred, table);
  }

  /** The MoneyAmount of a stored amount; fx_rate and is_custom_rate only when the caller asked for them. */
  amount(money: StoredMoney, date: string): MoneyAmount {
    const out: MoneyAmount = {
      value: money.value,
      currency: money.currency,
      converted_value: this.convertedValue(money, date),
      converted_currency: this.preferred,
    };
    if (this.includeFxDetails) {
      const resolved = this.rate(money, date);
      out.fx_rate = rateNumber(resolved.rate);
      out.is_custom_rate = hasAmount(money) ? resolved.custom : null;
    }
    return out;
  }

  /** As amount, but null when nothing is known of it (no value and no currency). */
  optionalAmount(money: StoredMoney, date: string): MoneyAmount | null {
    return money.value === null && money.currency === null ? null : this.amount(money, date);
  }
}

/** Loads the firm's rates for every amount that needs one and returns a converter over them. */
export async function moneyConverter(
  ctx: ToolContext,
  amounts: readonly DatedMoney[],
  options: { includeFxDetails: boolean },
): Promise<MoneyConverter> {
  const table = await loadRates(ctx, amounts);
  return new MoneyConverter(ctx.principal.firm.preferred_currency, table, options.includeFxDetails);
}
