import { z } from 'zod';
import type { CompanyWithFunds } from '../../db/repos/companies.ts';
import type { ToolContext } from '../context.ts';

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
  investment_lead_name: z.string().nullable(),
  investment_lead_email: z.string().nullable(),
  invested_fund_ids: z.array(z.string()).describe('Ids of the funds invested in the company.'),
});
export type Company = z.infer<typeof Company>;

/** Investment leads by user id: their name and e-mail. */
export type Leads = ReadonlyMap<string, { name: string; email: string }>;

/** The leads of these companies, in one query. */
export async function leadsOf(ctx: ToolContext, rows: readonly CompanyWithFunds[]): Promise<Leads> {
  const ids = [...new Set(rows.map((r) => r.investment_lead_id).filter((id): id is string => !!id))];
  return ctx.repos.users.contacts(ctx.principal.firm.id, ids);
}

export function toCompany(row: CompanyWithFunds, leads: Leads = new Map()): Company {
  const lead = row.investment_lead_id ? leads.get(row.investment_lead_id) : undefined;
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
    investment_lead_name: lead?.name ?? null,
    investment_lead_email: lead?.email ?? null,
    invested_fund_ids: row.invested_fund_ids,
  };
}
