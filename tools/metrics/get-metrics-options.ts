import { z } from 'zod';
import { defineTool, readOnly, restPaging } from '../define.ts';
import { MetricsOption, toMetricsOption } from '../schemas/metrics-option.ts';
import { listOf, pageFields, pageResult, toPage } from '../schemas/page.ts';

/** The reference's type names, and the value kinds each stands for. */
const KINDS_OF_TYPE: Record<string, string[]> = {
  Money: ['currency'],
  Percentage: ['percentage'],
  Integer: ['number'],
  Decimal: ['multiple', 'months'],
  String: ['text'],
  Select: ['select'],
};
const OPTION_TYPES = [
  'Integer',
  'Decimal',
  'String',
  'Money',
  'Percentage',
  'Select',
  'currency',
  'percentage',
  'number',
  'multiple',
  'months',
  'text',
  'select',
] as const;

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
    type: z
      .enum(OPTION_TYPES)
      .optional()
      .describe('Only this kind: Money, Percentage, Integer, Decimal, String, Select, or a type value.'),
    choices: z
      .array(z.string().min(1))
      .optional()
      .describe('Only select metrics offering all these choices (REST: also choices=a,b).'),
    is_multiple: z.boolean().optional().describe('True for only multiple-choice metrics.'),
  }),
  output: listOf(MetricsOption),
  annotations: readOnly,
  routes: [
    {
      method: 'GET',
      path: '/v1/metrics/options/',
      summary: 'List metric categories and custom metrics',
      rename: restPaging,
      envelope: 'page',
    },
  ],
  async handler(ctx, input) {
    const counted = await ctx.repos.metrics.listCategories(
      ctx.principal.firm.id,
      {
        name: input.category_name,
        id: input.category_id,
        isStandard: input.is_standard,
        isPointInTime: input.is_point_in_time,
        isArchived: input.is_archived,
        types: input.type ? (KINDS_OF_TYPE[input.type] ?? [input.type]) : undefined,
        choices: input.choices?.flatMap((c) => c.split(',')).filter((c) => c !== ''),
        isMultiple: input.is_multiple,
      },
      toPage(input),
    );
    return pageResult(input, counted, toMetricsOption);
  },
});
