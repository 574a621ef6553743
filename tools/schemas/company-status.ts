import { z } from 'zod';

export const statusInput = z
  .string()
  .min(1)
  .optional()
  .describe('Only companies with this status (exact, case-insensitive), e.g. active, exited, written-off.');
