import { z } from 'zod';
import { defineTool, readOnly, restPaging } from '../define.ts';
import { Fund, toFund } from '../schemas/fund.ts';
import { listOf, pageFields, pageResult, toPage } from '../schemas/page.ts';

export const listFunds = defineTool({
  name: 'list_funds',
  title: 'List funds',
  description: "The firm's funds with size, vintage year and currency.",
  input: z.object({ ...pageFields }),
  output: listOf(Fund),
  annotations: readOnly,
  routes: [
    { method: 'GET', path: '/v1/funds/', summary: 'List funds', rename: restPaging, envelope: 'page' },
  ],
  async handler(ctx, input) {
    const counted = await ctx.repos.funds.list(ctx.principal.firm.id, toPage(input));
    return pageResult(input, counted, toFund);
  },
});
