import { z } from 'zod';
import { addFinancingRounds as addRounds } from '../../services/cap-table.ts';
import { defineTool } from '../define.ts';
import { FinancingInput, FinancingOut, financingAmounts, toFinancingOut } from '../schemas/financing.ts';
import { lenient, unpack } from './items.ts';
import { convertedResults, resultsOf } from './shared.ts';

export const MAX_ROUNDS = 100;

const roundsMessage = `must hold 1 to ${MAX_ROUNDS} financing rounds`;

export const addFinancingRounds = defineTool({
  name: 'add_financing_rounds',
  title: 'Add financing rounds to cap tables',
  description:
    'Adds 1 to 100 financing rounds to cap tables you can access, all or none; a 400 names each offending field as financing_rounds[i].field. Needs the cap-table permission. Returns the created rounds in request order.',
  input: z.object({
    financing_rounds: z
      .array(lenient(FinancingInput))
      .min(1, { error: roundsMessage })
      .max(MAX_ROUNDS, { error: roundsMessage })
      .describe(`The rounds to add, 1 to ${MAX_ROUNDS}; an id given with a round is ignored.`),
  }),
  output: resultsOf(FinancingOut),
  annotations: { readOnlyHint: false, destructiveHint: true, idempotentHint: false, openWorldHint: false },
  permission: 'cap_table',
  write: true,
  routes: [
    {
      method: 'POST',
      path: '/beta/investment/financing-rounds/add/',
      summary: 'Add financing rounds',
      body: 'merge',
      envelope: 'results',
      status: 201,
    },
  ],
  async handler(ctx, input) {
    const created = await addRounds(ctx, unpack('financing_rounds', input.financing_rounds));
    return convertedResults(ctx, created, true, { amounts: financingAmounts, out: toFinancingOut });
  },
});
