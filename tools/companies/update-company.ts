import { z } from 'zod';
import type { CompanyChanges } from '../../db/repos/companies.ts';
import { updateCompany as updateCompanyRecord } from '../../services/companies.ts';
import { defineTool } from '../define.ts';
import { MissingParameter } from '../errors.ts';
import { Company, leadsOf, toCompany } from '../schemas/company.ts';
import { companyText, FiscalYearEnd, Sector, storedFiscalYearEnd } from '../schemas/company-fields.ts';

const FIELDS = [
  'firm_sector',
  'investment_lead_id',
  'city',
  'description',
  'fiscal_year_end',
  'name',
  'sector',
  'website',
] as const;

export const updateCompany = defineTool({
  name: 'update_company',
  title: 'Update a company',
  description:
    'Changes the given fields of one company and returns it. There is no onboarding here: every company is ' +
    '"offline" in the hosted service\'s terms, so all these fields can change. The slug stays when the name ' +
    'changes. Needs the editor or admin role.',
  input: z.object({
    company_id: z.string().min(1).describe('Company id (list_companies).'),
    firm_sector: companyText(255, "The firm's own sector label.").optional(),
    investment_lead_id: z
      .string()
      .min(1)
      .nullable()
      .optional()
      .describe('User id of the investment lead (list_users); null clears it.'),
    city: companyText(255, 'City.').optional(),
    description: companyText(10_000, 'Description.').optional(),
    fiscal_year_end: FiscalYearEnd.optional(),
    name: z
      .string()
      .trim()
      .min(1, { error: 'must not be empty' })
      .max(255, { error: 'must be at most 255 characters' })
      .optional()
      .describe('Company name.'),
    sector: Sector.optional().describe('Standard sector.'),
    website: companyText(255, 'Website URL.').optional(),
  }),
  output: Company,
  annotations: { readOnlyHint: false, destructiveHint: true, idempotentHint: true, openWorldHint: false },
  permission: 'edit_companies',
  write: true,
  routes: [
    {
      method: 'PATCH',
      path: '/v1/companies/:company_id/',
      summary: 'Change fields of a company',
      body: 'merge',
    },
  ],
  async handler(ctx, input) {
    const given = FIELDS.filter((f) => input[f] !== undefined);
    if (given.length === 0) {
      const message = `give at least one of ${FIELDS.join(', ')}`;
      throw new MissingParameter(
        `nothing to change: ${message}`,
        FIELDS.map((field) => ({ field, message })),
      );
    }
    const changes = Object.fromEntries(given.map((f) => [f, input[f]])) as CompanyChanges;
    if (changes.fiscal_year_end) changes.fiscal_year_end = storedFiscalYearEnd(changes.fiscal_year_end);
    const updated = await updateCompanyRecord(ctx, input.company_id, changes);
    return toCompany(updated, await leadsOf(ctx, [updated]));
  },
});
