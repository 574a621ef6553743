import { InvalidInput } from '../core/errors.ts';
import type { ReadContext } from './context.ts';

/** A status filter must be one the caller's companies have; the error names those. */
export async function checkStatus(ctx: ReadContext, status: string | undefined): Promise<void> {
  if (status === undefined) return;
  const known = await ctx.repos.companies.distinctValues(ctx.principal.scope, 'status');
  if (known.some((s) => s.toLowerCase() === status.toLowerCase())) return;
  const list = known.length > 0 ? known.join(', ') : 'none (no companies are visible)';
  throw new InvalidInput(`status must be one of: ${list}`, [
    { field: 'status', message: `must be one of: ${list}` },
  ]);
}
