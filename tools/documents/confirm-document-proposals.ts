import { z } from 'zod';
import { confirmProposals } from '../../services/extraction/review.ts';
import { defineTool } from '../define.ts';
import { reviewAnnotations as annotations, Ids, ReviewResult } from '../schemas/proposal-review.ts';

export const confirmDocumentProposals = defineTool({
  name: 'confirm_document_proposals',
  title: 'Confirm figures proposed from a spreadsheet',
  description:
    'Writes proposals of a document (ids, or every mapped open one) as metric data with corrections; an unmapped row (its id) needs a category correction. Budget rows go to a budget named after the document. Confirming again writes nothing. Editor or admin role.',
  input: z.object({
    document_id: z.string().min(1).describe('The document (list_documents).'),
    ids: Ids.optional().describe(
      'Proposal ids (list_document_proposals); all mapped open ones when left out.',
    ),
    corrections: z
      .array(
        z.object({
          ids: Ids.describe('Proposals this correction applies to.'),
          category: z.string().min(1).optional().describe('Standard category or custom metric name.'),
          multiplier: z.string().min(1).optional().describe('Positive decimal the values are multiplied by.'),
          flip_sign: z.boolean().optional().describe('true negates the values.'),
        }),
      )
      .max(1000)
      .optional()
      .describe('Changes to the figures before they are written.'),
    on_conflict: z
      .enum(['overwrite', 'skip', 'error'])
      .default('overwrite')
      .describe('For a point that meets existing data, as in create_metrics.'),
  }),
  output: ReviewResult,
  annotations,
  permission: 'review_documents',
  write: true,
  routes: [
    {
      method: 'POST',
      path: '/v1/documents/:document_id/proposals/confirm/',
      summary: 'Confirm figures proposed from a spreadsheet',
      body: 'merge',
      bodyLimit: '4mb',
    },
  ],
  handler: (ctx, input) =>
    confirmProposals(ctx, input.document_id, {
      ids: input.ids,
      corrections: input.corrections,
      onConflict: input.on_conflict,
    }),
});
