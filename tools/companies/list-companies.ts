import { z } from 'zod';
import { checkStatus } from '../../analytics/company-status.ts';
import { defineTool, readOnly, restPaging } from '../define.ts';
import { Company, leadsOf, toCompany } from '../schemas/company.ts';
import { statusInput } from '../schemas/company-status.ts';
import { listOf, pageFields, pageResult, toPage } from '../schemas/page.ts';

export const listCompanies = defineTool({
  name: 'list_companies',
  title: 'List portfolio companies',
  description:
    'The portfolio companies you can see, by name: id, slug, sector, city, status, website, currency, fiscal year end, lead (id, name, e-mail), funds. By sector or city: search_companies.',
  input: z.object({
    ...pageFields,
    ids: z.array(z.string()).optional().describe('Only these company ids; unknown ids are simply absent.'),
    name: z.string().optional().describe('Case-insensitive substring of the company name.'),
    status: statusInput,
  }),
  output: listOf(Company),
  annotations: readOnly,
  routes: [
    {
      method: 'GET',
      path: '/v1/companies/',
      summary: 'List companies',
      rename: restPaging,
      envelope: 'page',
    },
  ],
  async handler(ctx, input) {
    await checkStatus(ctx, input.status);
    const counted = await ctx.repos.companies.list(
      ctx.principal.scope,
      { ids: input.ids, name: input.name, status: input.status },
      toPage(input),
    );
    const leads = await leadsOf(ctx, counted.rows);
    return pageResult(input, counted, (row) => toCompany(row, leads));
  },
});
