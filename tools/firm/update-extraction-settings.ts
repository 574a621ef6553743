import { z } from 'zod';
import { setExtractionSettings } from '../../services/extraction/settings.ts';
import { defineTool } from '../define.ts';
import { ExtractionSettings } from './get-extraction-settings.ts';

export const updateExtractionSettings = defineTool({
  name: 'update_extraction_settings',
  title: 'Change the firm’s spreadsheet review settings',
  description:
    'Sets whether high-confidence figures from spreadsheets founders upload through an information request are confirmed without review. Admin role.',
  input: z.object({
    auto_confirm: z.boolean().describe('true confirms without review; false (default) reviews.'),
  }),
  output: ExtractionSettings,
  annotations: { readOnlyHint: false, destructiveHint: true, idempotentHint: true, openWorldHint: false },
  permission: 'manage_firm_settings',
  write: true,
  mcp: false,
  routes: [
    {
      method: 'PATCH',
      path: '/v1/extraction-settings/',
      summary: 'Change the firm’s spreadsheet review settings',
      body: 'merge',
    },
  ],
  handler: (ctx, input) => setExtractionSettings(ctx, { auto_confirm: input.auto_confirm }),
});
