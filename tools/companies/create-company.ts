import { z } from 'zod';
import { createCompany as createCompanyRecord } from '../../services/companies.ts';
import { defineTool } from '../define.ts';
import { Company, leadsOf, toCompany } from '../schemas/company.ts';
import {
  companyText,
  FiscalYearEnd,
  PLACEHOLDER_LOGO,
  Sector,
  storedFiscalYearEnd,
} from '../schemas/company-fields.ts';

export const createCompany = defineTool({
  name: 'create_company',
  title: 'Create a company',
  description:
    'Adds a company (only name is required) with a slug from its name, unique in the firm (-2, -3 … on a ' +
    'collision). Defaults: sector Other, fiscal_year_end 12/31, empty texts; status active, firm currency. ' +
    'Users with access to all companies, and its creator, see it. Needs the editor or admin role.',
  input: z.object({
    name: z
      .string()
      .trim()
      .min(1, { error: 'must not be empty' })
      .max(255, { error: 'must be at most 255 characters' })
      .describe('Company name.'),
    description: companyText(10_000, 'Description.').default(''),
    city: companyText(255, 'City.').default(''),
    sector: Sector.default('Other').describe('Standard sector.'),
    fiscal_year_end: FiscalYearEnd.default('12/31'),
    website: companyText(255, 'Website URL.').default(''),
  }),
  output: Company,
  annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: false, openWorldHint: false },
  permission: 'edit_companies',
  write: true,
  routes: [
    { method: 'POST', path: '/v1/companies/', summary: 'Create a company', body: 'merge', status: 201 },
  ],
  async handler(ctx, input) {
    const company = await createCompanyRecord(ctx, {
      ...input,
      fiscal_year_end: storedFiscalYearEnd(input.fiscal_year_end),
      logo_url: PLACEHOLDER_LOGO,
    });
    const created = { ...company, invested_fund_ids: [] };
    return toCompany(created, await leadsOf(ctx, [created]));
  },
});
