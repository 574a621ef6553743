import { z } from 'zod';
import type { ToolContext } from '../context.ts';
import { InvalidInput } from '../errors.ts';

export const statusInput = z
  .string()
  .min(1)
  .optional()
  .describe('Only companies with this status (exact, case-insensitive), e.g. active, exited, written-off.');

/** A status filter must be one the caller's companies have; the error names those. */
export async function checkStatus(ctx: ToolContext, status: string | undefined): Promise<void> {
  if (status === undefined) return;
  const known = await ctx.repos.companies.distinctValues(ctx.principal.scope, 'status');
  if (known.some((s) => s.toLowerCase() === status.toLowerCase())) return;
  const list = known.length > 0 ? known.join(', ') : 'none (no companies are visible)';
  throw new InvalidInput(`status must be one of: ${list}`, [
    { field: 'status', message: `must be one of: ${list}` },
  ]);
}
