import { z } from 'zod';
import { updateColumnValues } from '../../services/custom-columns.ts';
import { defineTool } from '../define.ts';

export const MAX_VALUES = 100;
export const MAX_TEXT_LENGTH = 5000;

const itemsMessage = `must hold 1 to ${MAX_VALUES} values`;

const SelectedOption = z.object({
  option_id: z.string().min(1).optional().describe('Option id.'),
  value: z.string().min(1).optional().describe('Option label; or give option_id.'),
});

const ValueItem = z.object({
  company_id: z.string().min(1).optional().describe('Company id; or give company_slug.'),
  company_slug: z.string().min(1).optional().describe('Company slug.'),
  custom_column_id: z.string().min(1).describe('Custom column id.'),
  value: z
    .string()
    .max(MAX_TEXT_LENGTH, { error: `must be at most ${MAX_TEXT_LENGTH} characters` })
    .optional()
    .describe(
      'Text columns: the text ("" empties it). Select columns: an option label, if no selected_options.',
    ),
  selected_options: z
    .array(SelectedOption)
    .max(100)
    .optional()
    .describe(
      'Select and multi_select columns: the chosen options (at most one for select; none empties it).',
    ),
});

const ValueOut = z.object({
  company_id: z.string(),
  company_slug: z.string(),
  custom_column_id: z.string(),
  value: z.string().describe('The text, or the labels of the chosen options joined by ", "; "" when empty.'),
  selected_options: z
    .array(z.object({ option_id: z.string(), value: z.string(), color: z.string() }))
    .describe('The chosen options in display order; empty for text columns.'),
});

export const updateCustomColumnValues = defineTool({
  name: 'update_custom_column_values',
  title: 'Set custom column values',
  description:
    `Replaces 1 to ${MAX_VALUES} custom column values of companies, all or none (a 400 names items[i].field). ` +
    'Text columns take value; select and multi_select columns take selected_options (by option_id or label) ' +
    "among the column's options (get_custom_column_options). Needs the editor or admin role.",
  input: z.object({
    items: z
      .array(ValueItem)
      .min(1, { error: itemsMessage })
      .max(MAX_VALUES, { error: itemsMessage })
      .describe('The values; each (company, column) pair once.'),
  }),
  output: z.object({ results: z.array(ValueOut).describe('The values now stored, in request order.') }),
  annotations: { readOnlyHint: false, destructiveHint: true, idempotentHint: true, openWorldHint: false },
  permission: 'edit_companies',
  write: true,
  routes: [
    {
      method: 'PUT',
      path: '/v1/custom-columns/values/',
      summary: 'Replace custom column values',
      body: { field: 'items' },
      envelope: 'results',
    },
  ],
  async handler(ctx, input) {
    return { results: await updateColumnValues(ctx, input.items) };
  },
});
