import { z } from 'zod';
import { deleteMetric as deleteMetricDatum } from '../../services/metrics.ts';
import { defineTool } from '../define.ts';

export const deleteMetric = defineTool({
  name: 'delete_metric',
  title: 'Delete one metric value',
  description:
    'Deletes one metric datum (soft: listed again with include_deleted=1 on GET /v1/metrics/); ' +
    'recorded in the metric history. Editor or admin role.',
  input: z.object({
    datum_id: z.string().min(1).describe('Datum id from get_company_metrics.'),
  }),
  output: z.object({
    success: z.boolean(),
    message: z.string(),
  }),
  annotations: { readOnlyHint: false, destructiveHint: true, idempotentHint: true, openWorldHint: false },
  permission: 'edit_metrics',
  write: true,
  routes: [{ method: 'DELETE', path: '/v1/metrics/:datum_id/', summary: 'Delete one metric datum' }],
  async handler(ctx, input) {
    await deleteMetricDatum(ctx, input.datum_id);
    return { success: true, message: `metric datum ${input.datum_id} deleted` };
  },
});
