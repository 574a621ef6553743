import { z } from 'zod';
import { defineTool, readOnly } from '../define.ts';

export const ExtractionSettings = z.object({
  auto_confirm: z
    .boolean()
    .describe(
      'true: figures read with high confidence from spreadsheets that founders upload through an information request are confirmed without review; false (the default): every proposal waits for review.',
    ),
  updated_at: z.string().nullable().describe('When the setting was last changed; null when it never was.'),
});

export const getExtractionSettings = defineTool({
  name: 'get_extraction_settings',
  title: 'Get the firm’s spreadsheet review settings',
  description: 'Whether figures read from founders’ spreadsheets are confirmed without review.',
  input: z.object({}),
  output: ExtractionSettings,
  annotations: readOnly,
  mcp: false,
  routes: [
    {
      method: 'GET',
      path: '/v1/extraction-settings/',
      summary: 'Get the firm’s spreadsheet review settings',
    },
  ],
  handler: (ctx) => ctx.repos.extraction.settings(ctx.principal.firm.id),
});
