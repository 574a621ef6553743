import { z } from 'zod';

/** The standard sectors of the reference documents; `Other` is the default. */
export const SECTORS = [
  'B2B Software',
  'Direct-to-consumer',
  'Consumer Internet/Mobile',
  'AR/VR',
  'Life Sciences',
  'Health Technology',
  'Hardware',
  'Edtech',
  'Media',
  'Fintech',
  'Govtech',
  'Crypto/blockchain',
  'Other',
  'Logistics',
  'Insurtech',
  'Software Infrastructure',
  'Security',
  'Artificial Intelligence',
  'AG-Tech',
  'Sustainability',
  'Gaming',
] as const;

export const Sector = z.enum(SECTORS);

const DAYS_IN_MONTH = [31, 29, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31];
const MONTH_DAY = /^(\d\d)[/-](\d\d)$/;

/** MM/DD (the reference's form) or MM-DD, a real day of the year. */
export const FiscalYearEnd = z
  .string()
  .refine(
    (s) => {
      const m = MONTH_DAY.exec(s);
      if (!m) return false;
      const month = Number(m[1]);
      const day = Number(m[2]);
      return month >= 1 && month <= 12 && day >= 1 && day <= DAYS_IN_MONTH[month - 1]!;
    },
    { error: 'must be a month and day such as 12/31 (MM/DD) or 12-31' },
  )
  .describe('Fiscal year end, MM/DD or MM-DD; returned as MM-DD like every company.');

/** The stored form of a fiscal year end: MM-DD. */
export function storedFiscalYearEnd(value: string): string {
  return value.replace('/', '-');
}

export const companyText = (max: number, what: string) =>
  z
    .string()
    .max(max, { error: `must be at most ${max} characters` })
    .describe(what);

/**
 * The logo of a company created without one: the reference requires a non-empty `logo_url`, and a
 * neutral image served inline needs no host of its own.
 */
export const PLACEHOLDER_LOGO =
  'data:image/svg+xml;base64,' +
  Buffer.from(
    '<svg xmlns="http://www.w3.org/2000/svg" width="64" height="64"><rect width="64" height="64" rx="8" fill="#d9dee5"/></svg>',
  ).toString('base64');
