import { z } from 'zod';
import { defineTool, readOnly } from '../define.ts';
import { isSecurityType, Security, securityAmounts, toSecurity } from '../schemas/security.ts';
import { idsFilter, listFilter, pagedResults, pageOf, readFilter } from './shared.ts';

export const getSecurities = defineTool({
  name: 'get_securities',
  title: 'Get securities (holdings)',
  description:
    "Securities the firm's funds hold (shares, warrants, public equity, convertibles, tokens) by issue date; each has a type and that kind's fields, money also in the firm's currency.",
  input: readFilter({
    security_ids: idsFilter('security', 'from get_securities'),
    fund_id: z.string().min(1).nullish().describe('Only securities held by this fund (id from list_funds).'),
  }),
  output: pageOf(Security),
  annotations: readOnly,
  routes: [
    {
      method: 'POST',
      path: '/beta/investment/securities/get/',
      summary: 'Get securities',
      body: 'merge',
      envelope: 'results',
    },
  ],
  async handler(ctx, input) {
    const rows = (
      await ctx.repos.capTable.securities(ctx.principal.scope, {
        companyIds: listFilter(input.company_ids),
        securityIds: listFilter(input.security_ids),
        fundId: input.fund_id ?? undefined,
      })
    ).filter((r) => isSecurityType(r.type));
    return pagedResults(ctx, rows, input, {
      amounts: securityAmounts,
      out: (r, fx) => toSecurity(r as typeof r & { type: Security['type'] }, fx),
    });
  },
});
