import { z } from 'zod';
import { defineTool, readOnly } from '../define.ts';
import { Company, toCompany } from '../schemas/company.ts';
import { checkStatus, statusInput } from '../schemas/company-status.ts';
import { listOf, pageFields, pageResult, toPage } from '../schemas/page.ts';

const text = (what: string) =>
  z.string().min(1).optional().describe(`Case-insensitive substring of the company ${what}.`);

export const searchCompanies = defineTool({
  name: 'search_companies',
  title: 'Search portfolio companies',
  description:
    'Finds portfolio companies by case-insensitive substrings of their name, sector and city (all given ' +
    'filters must match), searching every company the caller can see, ordered by name. Use it to turn a ' +
    'company name into the company_id the other tools need; with no filter it lists all companies like ' +
    'list_companies.',
  input: z.object({
    name_contains: text('name'),
    sector: text('sector'),
    city: text('city'),
    status: statusInput,
    ...pageFields,
  }),
  output: listOf(Company),
  annotations: readOnly,
  async handler(ctx, input) {
    await checkStatus(ctx, input.status);
    const counted = await ctx.repos.companies.list(
      ctx.principal.scope,
      { name: input.name_contains, sector: input.sector, city: input.city, status: input.status },
      toPage(input),
    );
    return pageResult(input, counted, toCompany);
  },
});
