import { z } from 'zod';
import { defineTool } from '../define.ts';
import { NotFound } from '../errors.ts';

export const deleteMetric = defineTool({
  name: 'delete_metric',
  title: 'Delete one metric value',
  description:
    'Deletes one metric datum: it leaves every listing and analysis, and stays readable only through ' +
    'GET /v1/metrics/ with include_deleted=1 (its deleted_at set). Find the datum id with ' +
    'get_company_metrics first. Needs the editor or admin role; the deletion is recorded in the metric ' +
    'history with the last value.',
  input: z.object({
    datum_id: z
      .string()
      .min(1)
      .describe('Id of the metric datum, as returned by get_company_metrics or GET /v1/metrics/.'),
  }),
  output: z.object({
    success: z.boolean().describe('true: the datum is deleted.'),
    message: z.string().describe('What was done.'),
  }),
  annotations: { readOnlyHint: false, destructiveHint: true, idempotentHint: true, openWorldHint: false },
  permission: 'edit_metrics',
  write: true,
  async handler(ctx, input) {
    const deleted = await ctx.repos.metricWrites.softDelete(
      ctx.principal.scope,
      input.datum_id,
      ctx.principal.user.id,
      ctx.clock.now().toISOString(),
    );
    if (!deleted) {
      throw new NotFound(
        `no metric datum with id ${input.datum_id}; get_company_metrics (GET /v1/metrics/ over REST) lists valid ids`,
      );
    }
    return { success: true, message: `metric datum ${input.datum_id} deleted` };
  },
});
