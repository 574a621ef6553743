import { z } from 'zod';
import { rejectProposals } from '../../services/extraction/review.ts';
import { defineTool } from '../define.ts';
import { reviewAnnotations as annotations, Ids, ReviewResult } from '../schemas/proposal-review.ts';

export const rejectDocumentProposals = defineTool({
  name: 'reject_document_proposals',
  title: 'Reject figures proposed from a spreadsheet',
  description:
    'Rejects proposals of a document (ids, or every open one): nothing is written for them. Editor or admin role.',
  input: z.object({
    document_id: z.string().min(1).describe('The document (list_documents).'),
    ids: Ids.optional().describe('Proposal ids (list_document_proposals); every open one when left out.'),
  }),
  output: ReviewResult,
  annotations,
  permission: 'review_documents',
  write: true,
  routes: [
    {
      method: 'POST',
      path: '/v1/documents/:document_id/proposals/reject/',
      summary: 'Reject figures proposed from a spreadsheet',
      body: 'merge',
    },
  ],
  handler: (ctx, input) => rejectProposals(ctx, input.document_id, input.ids),
});
