import { chaseLateInformationRequests } from './chase-late-information-requests.ts';
import { companyTearSheet } from './company-tear-sheet.ts';
import type { PromptDefinition } from './define.ts';
import { quarterlyPortfolioReview } from './quarterly-portfolio-review.ts';

/** Every MCP prompt: the common pieces of work a model is started on. */
export const prompts: readonly PromptDefinition[] = [
  quarterlyPortfolioReview,
  companyTearSheet,
  chaseLateInformationRequests,
];
