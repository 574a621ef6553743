/** The spec's CurrencyCode values, in its order. */
export const CURRENCY_CODES = [
  'AED',
  'AUD',
  'BDT',
  'BRL',
  'CAD',
  'CHF',
  'CNY',
  'COP',
  'CZK',
  'DKK',
  'EUR',
  'GBP',
  'GHS',
  'HKD',
  'IDR',
  'ILS',
  'INR',
  'JPY',
  'JOD',
  'KES',
  'KRW',
  'MXN',
  'NGN',
  'NOK',
  'NZD',
  'PEN',
  'PHP',
  'SAR',
  'SGD',
  'USD',
  'PKR',
  'THB',
  'TRY',
  'TWD',
  'TZS',
  'VND',
  'SEK',
  'ISK',
  'ZAR',
] as const;

export type CurrencyCodeValue = (typeof CURRENCY_CODES)[number];

export function isCurrencyCode(value: string): value is CurrencyCodeValue {
  return (CURRENCY_CODES as readonly string[]).includes(value);
}
