import { z } from 'zod';
import { addShareClasses as addClasses } from '../../services/cap-table.ts';
import { defineTool } from '../define.ts';
import { MoneyInput } from '../schemas/money.ts';
import { PURCHASE_TYPES, ShareClassOut, toShareClassOut } from '../schemas/share-class.ts';
import { itemList, MAX_ITEMS, unpack } from './items.ts';
import { convertedResults, resultsOf } from './shared.ts';

const ShareClassInput = z.object({
  company_id: z.string().min(1).describe('Company (list_companies).'),
  financing_id: z.string().min(1).describe("The company's round (get_financing_events)."),
  purchase_type: z.enum(PURCHASE_TYPES).describe('primary or secondary.'),
  type: z.enum(['common', 'preferred']).describe('common or preferred.'),
  name: z.string().trim().min(1).max(255).describe('1 to 255 characters.'),
  price_per_share: MoneyInput.describe("Price per share; converted at the round's closing date."),
  include_in_fair_value: z
    .boolean()
    .nullish()
    .describe('Omitted or null: true for primary, false for secondary.'),
});

export const addShareClasses = defineTool({
  name: 'add_share_classes',
  title: 'Add share classes to cap tables',
  description:
    `Adds 1 to ${MAX_ITEMS} share classes to financing rounds, all or none; a 400 names each offending field ` +
    'as share_classes[i].field. Needs the cap-table permission.',
  input: z.object({
    share_classes: itemList(ShareClassInput, `1 to ${MAX_ITEMS} share classes.`),
  }),
  output: resultsOf(ShareClassOut),
  annotations: { readOnlyHint: false, destructiveHint: true, idempotentHint: false, openWorldHint: false },
  permission: 'cap_table',
  write: true,
  routes: [
    {
      method: 'POST',
      path: '/beta/investment/share-classes/add/',
      summary: 'Add share classes',
      body: 'merge',
      envelope: 'results',
      status: 201,
    },
  ],
  async handler(ctx, input) {
    const created = await addClasses(ctx, unpack('share_classes', input.share_classes));
    return convertedResults(ctx, created, true, {
      amounts: (r) => [{ money: r.price_per_share, date: r.closing_date }],
      out: toShareClassOut,
    });
  },
});
