import { z } from 'zod';
import { defineTool, readOnly } from '../define.ts';
import { NotFound } from '../errors.ts';
import { Company, leadsOf, toCompany } from '../schemas/company.ts';

export const getCompany = defineTool({
  name: 'get_company',
  title: 'Get one company',
  description: 'Every field of one portfolio company by id.',
  input: z.object({
    company_id: z.string().min(1).describe('Company id.'),
  }),
  output: Company,
  annotations: readOnly,
  routes: [{ method: 'GET', path: '/v1/companies/:company_id/', summary: 'Get one company' }],
  async handler(ctx, input) {
    const row = await ctx.repos.companies.get(ctx.principal.scope, input.company_id);
    if (!row) {
      throw new NotFound(
        `no company with id ${input.company_id}; call list_companies or search_companies for valid ids`,
      );
    }
    return toCompany(row, await leadsOf(ctx, [row]));
  },
});
