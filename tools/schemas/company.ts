import { z } from 'zod';
import type { CompanyWithFunds } from '../../db/repos/companies.ts';

export const Company = z.object({
  id: z.string().describe('Company identifier.'),
  name: z.string(),
  slug: z.string().describe('Unique company slug.'),
  description: z.string(),
  sector: z.string(),
  firm_sector: z.string(),
  city: z.string(),
  status: z.string(),
  unique_ref: z.string(),
  website: z.string(),
  logo_url: z.string(),
  fiscal_year_end: z.string().describe('Month and day the fiscal year ends, MM-DD.'),
  reporting_currency: z.string(),
  investment_lead_id: z.string().nullable().describe('User id of the investment lead.'),
  invested_fund_ids: z.array(z.string()).describe('Ids of the funds invested in the company.'),
});
export type Company = z.infer<typeof Company>;

export function toCompany(row: CompanyWithFunds): Company {
  return {
    id: row.id,
    name: row.name,
    slug: row.slug,
    description: row.description,
    sector: row.sector,
    firm_sector: row.firm_sector,
    city: row.city,
    status: row.status,
    unique_ref: row.unique_ref,
    website: row.website,
    logo_url: row.logo_url,
    fiscal_year_end: row.fiscal_year_end,
    reporting_currency: row.reporting_currency,
    investment_lead_id: row.investment_lead_id,
    invested_fund_ids: row.invested_fund_ids,
  };
}
