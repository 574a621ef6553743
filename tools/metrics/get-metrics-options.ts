import { z } from 'zod';
import { defineTool, readOnly } from '../define.ts';
import { MetricsOption, toMetricsOption } from '../schemas/metrics-option.ts';
import { listOf, pageFields, pageResult, toPage } from '../schemas/page.ts';

export const getMetricsOptions = defineTool({
  name: 'get_metrics_options',
  title: 'List metric categories',
  description:
    'The metric categories the firm uses: standard ones first, then custom metrics, with value kind, stock (point-in-time) or flow, and the choices of select metrics.',
  input: z.object({
    ...pageFields,
    category_name: z
      .string()
      .min(1)
      .optional()
      .describe('Only categories whose name contains this text (case-insensitive).'),
    is_standard: z
      .boolean()
      .optional()
      .describe('True for only standard categories, false for only custom metrics.'),
    category_id: z.string().min(1).optional().describe('Only the category with this id.'),
    is_point_in_time: z
      .boolean()
      .optional()
      .describe('True for only point-in-time categories (stocks), false for only flows.'),
    is_archived: z
      .boolean()
      .optional()
      .describe('True for only archived custom metrics, false for only active ones.'),
  }),
  output: listOf(MetricsOption),
  annotations: readOnly,
  async handler(ctx, input) {
    const counted = await ctx.repos.metrics.listCategories(
      ctx.principal.firm.id,
      {
        name: input.category_name,
        id: input.category_id,
        isStandard: input.is_standard,
        isPointInTime: input.is_point_in_time,
        isArchived: input.is_archived,
      },
      toPage(input),
    );
    return pageResult(input, counted, toMetricsOption);
  },
});
