import { z } from 'zod';

/** How to read a figure's value. */
export const Unit = z
  .enum(['money', 'percent', 'number', 'months', 'multiple'])
  .describe(
    'money: an amount in `currency`; percent: 12.50 means 12.5 %, the one unit of every percentage here ' +
      '(growth, margins, and stored percentage categories such as gross_margin: a stored 0.25 reads 25.00); ' +
      'number: a count such as headcount; months: a duration; multiple: a ratio (x).',
  );
export type Unit = z.infer<typeof Unit>;

export const Period = z
  .object({
    from: z.string().describe('First month covered or compared, YYYY-MM.'),
    to: z.string().describe('Last month covered or compared, YYYY-MM.'),
  })
  .describe('The months a figure covers (a sum or average) or compares (a growth rate).');
export type Period = z.infer<typeof Period>;

export const Source = z
  .object({
    categories: z.array(z.string()).describe('Metric categories the figure was computed from.'),
    cadence: z
      .string()
      .nullable()
      .describe('Cadence of the rows used (month, quarter, year, point_in_time); null when none.'),
    dates: z.array(z.string()).describe('Dates (YYYY-MM-DD) of the data points used.'),
    datum_ids: z.array(z.string()).describe('Ids of the data points used (see get_company_metrics).'),
  })
  .describe('The data a figure came from.');
export type Source = z.infer<typeof Source>;

/** A money figure in the firm's preferred currency. */
export const Converted = z
  .object({
    value: z.string().nullable().describe('The value in `currency`, 2 decimals; null when no rate is known.'),
    currency: z.string().describe("The firm's preferred currency."),
    fx_rate: z.number().nullable().describe('Rate applied (1 in the same currency); null when unknown.'),
    fx_rate_date: z
      .string()
      .nullable()
      .describe("Date of the rate: the firm's latest on or before the end of the figure's period."),
    reason: z.string().nullable().describe('Why value is null; null when converted.'),
  })
  .describe("Money only: the value in the firm's preferred currency; null for other units or a null value.");
export type Converted = z.infer<typeof Converted>;

/** One computed number with everything needed to trust it, or null with the reason it is missing. */
export const Figure = z.object({
  value: z
    .string()
    .nullable()
    .describe(
      'Decimal string (money, months and multiples with 2 decimals, percent with 2 decimals); null when ' +
        'it cannot be computed, with the reason.',
    ),
  unit: Unit,
  currency: z.string().nullable().describe('Currency of a money value; null for other units.'),
  period: Period.nullable(),
  source: Source,
  reason: z.string().nullable().describe('Why the value is null; null when it was computed.'),
  converted: Converted.nullable(),
});
export type Figure = z.infer<typeof Figure>;

/** The latest reported value of one category. */
export const LatestFigure = Figure.extend({
  date: z.string().nullable().describe('Date of the data point, YYYY-MM-DD.'),
});
export type LatestFigure = z.infer<typeof LatestFigure>;

export const FxRateUsed = z.object({
  from_currency: z.string(),
  to_currency: z.string(),
  date: z.string().describe('Date the rate is quoted for (the latest on or before the datum date).'),
  rate: z.string().describe('Units of to_currency per unit of from_currency, as a decimal string.'),
});
export type FxRateUsed = z.infer<typeof FxRateUsed>;

/** A figure of one company in a portfolio view: its value as reported, and money also in the firm's currency. */
export const PortfolioFigure = z.object({
  value: z
    .string()
    .nullable()
    .describe(
      'Decimal string in `currency` for money (as reported, or in the firm currency when the company reports in ' +
        'several), percent with 2 decimals (12.50 = 12.5 %), months, multiples or a count; null with the reason.',
    ),
  unit: Unit,
  as_of_month: z.string().nullable().describe('YYYY-MM the figure is as of (the last month it covers).'),
  currency: z.string().nullable().describe('Currency of value for money; null for other units.'),
  converted_value: z
    .string()
    .nullable()
    .describe("Money: value in the firm's preferred currency; null without a rate, or for other units."),
  converted_currency: z.string().nullable().describe("The firm's preferred currency, for money."),
  fx_rate: z
    .number()
    .nullable()
    .describe('Money: rate from currency into converted_currency (1 when the same); null when unknown.'),
  fx_rate_date: z
    .string()
    .nullable()
    .describe('Date the rate is quoted for: the latest on or before the end of as_of_month.'),
  reason: z.string().nullable().describe('Why value or converted_value is null; null when both are known.'),
});
export type PortfolioFigure = z.infer<typeof PortfolioFigure>;
