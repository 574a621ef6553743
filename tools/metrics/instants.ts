import { z } from 'zod';

const DATE = /^\d{4}-\d{2}-\d{2}$/;
const DATE_TIME = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(?::\d{2}(?:\.\d+)?)?(?:Z|[+-]\d{2}:?\d{2})?$/i;

/**
 * An inclusive bound on a stored instant (ISO 8601 UTC with milliseconds), or null when `text` is not
 * ISO 8601. A date alone covers its whole UTC day; a date-time without an offset is read as UTC.
 */
export function instantBound(text: string, side: 'from' | 'to'): string | null {
  let candidate = text;
  if (DATE.test(text)) candidate = side === 'from' ? `${text}T00:00:00.000Z` : `${text}T23:59:59.999Z`;
  else if (!DATE_TIME.test(text)) return null;
  else if (!/(?:Z|[+-]\d{2}:?\d{2})$/i.test(text)) candidate = `${text}Z`;
  const date = new Date(candidate);
  if (Number.isNaN(date.getTime())) return null;
  // Reject calendar overflow (2026-02-30) that Date would roll into March.
  const isoDay = new Date(`${text.slice(0, 10)}T00:00:00.000Z`);
  if (Number.isNaN(isoDay.getTime()) || isoDay.toISOString().slice(0, 10) !== text.slice(0, 10)) return null;
  return date.toISOString();
}

/** An inclusive bound on updated_at; `explained` adds how the instant is read to the description. */
export function instantField(side: 'from' | 'to', description: string, explained = true) {
  return z
    .string()
    .refine((v) => instantBound(v, side) !== null, {
      message: 'must be an ISO 8601 date-time such as 2026-01-31T12:00:00Z, or a date YYYY-MM-DD',
    })
    .optional()
    .describe(
      explained
        ? `${description} ISO 8601 date-time (UTC when no offset is given); a date alone covers the whole UTC day.`
        : description,
    );
}
