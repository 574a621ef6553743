import { z } from 'zod';
import { defineTool, readOnly } from '../define.ts';
import { PURCHASE_TYPES, ShareClassOut, toShareClassOut } from '../schemas/share-class.ts';
import { idsFilter, listFilter, pagedResults, pageOf, readFilter } from './shared.ts';

export const getShareClasses = defineTool({
  name: 'get_share_classes',
  title: 'Get share classes',
  description:
    "Share classes of the cap tables you can see: common or preferred, primary or secondary, price per share (also in the firm's currency) and financing round.",
  input: readFilter({
    share_class_ids: idsFilter('share class', 'from get_share_classes'),
    purchase_type: z.enum(PURCHASE_TYPES).nullish().describe('Only primary or only secondary share classes.'),
  }),
  output: pageOf(ShareClassOut),
  annotations: readOnly,
  routes: [
    {
      method: 'POST',
      path: '/beta/investment/share-classes/get/',
      summary: 'Get share classes',
      body: 'merge',
      envelope: 'results',
    },
  ],
  async handler(ctx, input) {
    const rows = await ctx.repos.capTable.shareClasses(ctx.principal.scope, {
      companyIds: listFilter(input.company_ids),
      shareClassIds: listFilter(input.share_class_ids),
      purchaseType: input.purchase_type ?? undefined,
    });
    return pagedResults(ctx, rows, input, {
      amounts: (r) => [{ money: r.price_per_share, date: r.closing_date }],
      out: toShareClassOut,
    });
  },
});
