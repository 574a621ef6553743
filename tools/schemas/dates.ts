import { z } from 'zod';

/** A calendar date parameter, YYYY-MM-DD. */
export function isoDateField(description: string) {
  return z.iso.date().optional().describe(`${description} Format YYYY-MM-DD.`);
}

/** The day after a YYYY-MM-DD date, so an inclusive upper bound on a date can filter instants with `<`. */
export function nextDay(date: string): string {
  const d = new Date(`${date}T00:00:00.000Z`);
  d.setUTCDate(d.getUTCDate() + 1);
  return d.toISOString().slice(0, 10);
}

/** A refinement for inputs with `from_date` and `to_date`: from after to is an error on from_date. */
export function checkDateRange(input: { from_date?: string; to_date?: string }, ctx: z.RefinementCtx): void {
  if (input.from_date && input.to_date && input.from_date > input.to_date) {
    ctx.addIssue({ code: 'custom', path: ['from_date'], message: 'must not be after to_date' });
  }
}
