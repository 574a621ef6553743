import { z } from 'zod';
import { checkStatus } from '../../analytics/company-status.ts';
import { defineTool, readOnly } from '../define.ts';
import { Company, leadsOf, toCompany } from '../schemas/company.ts';
import { statusInput } from '../schemas/company-status.ts';
import { listOf, pageFields, pageResult, toPage } from '../schemas/page.ts';

const text = (what: string) =>
  z.string().min(1).optional().describe(`Case-insensitive substring of the company ${what}.`);

export const searchCompanies = defineTool({
  name: 'search_companies',
  title: 'Search portfolio companies',
  description:
    'Finds companies by case-insensitive substrings of name, sector and city (all given filters must match), by name. Turns a company name into its company_id. When a sector or city matches nothing, the answer lists the valid ones.',
  input: z.object({
    name_contains: text('name'),
    sector: text('sector'),
    city: text('city'),
    status: statusInput,
    ...pageFields,
  }),
  output: listOf(Company).extend({
    valid_values: z
      .object({ sectors: z.array(z.string()), cities: z.array(z.string()) })
      .optional()
      .describe('Only when a sector or city filter matched nothing: the sectors and cities you can search.'),
  }),
  annotations: readOnly,
  async handler(ctx, input) {
    await checkStatus(ctx, input.status);
    const counted = await ctx.repos.companies.list(
      ctx.principal.scope,
      { name: input.name_contains, sector: input.sector, city: input.city, status: input.status },
      toPage(input),
    );
    const leads = await leadsOf(ctx, counted.rows);
    const result = pageResult(input, counted, (row) => toCompany(row, leads));
    if (counted.count > 0 || (!input.sector && !input.city)) return result;
    // Every visible company, once, so the model can retry with a value that exists.
    const all = await ctx.repos.companies.list(ctx.principal.scope, {}, { limit: 100_000, offset: 0 });
    const distinct = (values: string[]) =>
      [...new Set(values.filter((v) => v.trim() !== ''))].sort((a, b) => a.localeCompare(b));
    return {
      ...result,
      valid_values: {
        sectors: distinct(all.rows.map((c) => c.sector)),
        cities: distinct(all.rows.map((c) => c.city)),
      },
    };
  },
});
