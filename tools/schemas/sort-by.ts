import { z } from 'zod';

export type SortDirection = 'asc' | 'desc';

/**
 * `-created_at` is newest first; `created_at` and `+created_at` oldest first. A `+` sent unencoded
 * in a query string arrives as a space, so a leading space means the same as `+`. Undefined (the
 * list's own order) when no sort_by was given.
 */
export function sortDirection(sortBy: string | undefined): SortDirection | undefined {
  if (sortBy === undefined) return undefined;
  if (sortBy === '-created_at') return 'desc';
  if (/^[+ ]?created_at$/.test(sortBy)) return 'asc';
  return undefined;
}

export const sortByField = z
  .string()
  .refine((v) => sortDirection(v) !== undefined, {
    message: 'must be -created_at (newest first), or created_at or +created_at (oldest first)',
  })
  .optional()
  .describe(
    'Order by creation time: -created_at for newest first, created_at or +created_at for oldest first.',
  );
