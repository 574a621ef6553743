import { z } from 'zod';

/** The most proposal ids one review call takes. */
export const MAX_REVIEW_IDS = 10_000;

/** Proposal ids of one document. */
export const Ids = z.array(z.string().min(1)).min(1).max(MAX_REVIEW_IDS);

/** What a review of a document's proposals did. */
export const ReviewResult = z.object({
  document_id: z.string(),
  parse_state: z.string().describe('completed once nothing is left to review.'),
  confirmed: z.number().int(),
  rejected: z.number().int(),
  written: z
    .object({
      created: z.number().int(),
      overwritten: z.number().int(),
      unchanged: z.number().int(),
      skipped: z.number().int(),
    })
    .describe('Metric data the confirmed figures wrote, by outcome.'),
  budget_id: z
    .string()
    .nullable()
    .describe('The budget named after the document that budget figures went to.'),
  open: z.number().int().describe('Proposals still waiting for review.'),
});

export const reviewAnnotations = {
  readOnlyHint: false,
  destructiveHint: true,
  idempotentHint: true,
  openWorldHint: false,
};
