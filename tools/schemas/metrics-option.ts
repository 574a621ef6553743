import { z } from 'zod';
import type { CategoryRow } from '../../db/repos/metrics.ts';

export const MetricsOption = z.object({
  category_name: z
    .string()
    .describe('Standard category name, or the display name of a custom metric; use it as a category filter.'),
  category_id: z.string(),
  is_standard: z.boolean().describe('True for the standard categories, false for the firm custom metrics.'),
  is_archived: z.boolean(),
  type: z
    .string()
    .describe('Value kind: currency, percentage (a fraction), number, multiple, months, text or select.'),
  is_point_in_time: z
    .boolean()
    .describe('True for stocks (cadence point_in_time); false for flows (cadence month, quarter or year).'),
  choices: z.array(z.string()).describe('The allowed values of a select metric; empty for other kinds.'),
  is_multiple: z.boolean().describe('True when a select metric takes several choices.'),
});
export type MetricsOption = z.infer<typeof MetricsOption>;

export function toMetricsOption(row: CategoryRow): MetricsOption {
  return {
    category_name: row.name,
    category_id: row.id,
    is_standard: row.is_standard,
    is_archived: row.is_archived,
    type: row.category_type,
    is_point_in_time: row.is_point_in_time,
    choices: row.choices,
    is_multiple: row.is_multiple,
  };
}
