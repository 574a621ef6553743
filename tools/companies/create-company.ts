import { z } from 'zod';
import { slugify } from '../../core/slug.ts';
import { newId, nowIso } from '../../db/ids.ts';
import type { CompanyRow } from '../../db/repos/companies.ts';
import { inTransaction } from '../../db/repos/index.ts';
import { defineTool } from '../define.ts';
import { Company, toCompany } from '../schemas/company.ts';
import {
  companyText,
  FiscalYearEnd,
  PLACEHOLDER_LOGO,
  Sector,
  storedFiscalYearEnd,
} from '../schemas/company-fields.ts';

/** Status of a new company: the investment status the portfolio reads use (active, exited, written-off …). */
export const NEW_COMPANY_STATUS = 'active';

/** Room left in the 255-character slug for a "-N" suffix. */
const SLUG_BASE_MAX = 240;

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
  async handler(ctx, input) {
    const { principal } = ctx;
    const base = slugify(input.name).slice(0, SLUG_BASE_MAX).replace(/-$/, '') || 'company';
    const now = nowIso(ctx.clock.now());
    const row: Omit<CompanyRow, 'slug'> = {
      id: newId(),
      firm_id: principal.firm.id,
      name: input.name,
      description: input.description,
      sector: input.sector,
      firm_sector: '',
      city: input.city,
      status: NEW_COMPANY_STATUS,
      unique_ref: '',
      website: input.website,
      logo_url: PLACEHOLDER_LOGO,
      fiscal_year_end: storedFiscalYearEnd(input.fiscal_year_end),
      reporting_currency: principal.firm.preferred_currency,
      investment_lead_id: null,
      created_at: now,
      updated_at: now,
    };
    // Its own transaction over MCP; a savepoint inside the one a REST write already runs in.
    const slug = await inTransaction(ctx.repos, async (repos) => {
      const slug = await repos.companies.createWithFreeSlug(row, base);
      // A creator limited to listed companies must still see what they created.
      if (!principal.user.all_companies) await repos.users.grantCompany(principal.user.id, row.id);
      const { id: _id, firm_id: _firm, created_at: _c, updated_at: _u, ...written } = row;
      await repos.changeLog.record({
        firmId: principal.firm.id,
        entity: 'companies',
        entityId: row.id,
        action: 'create',
        changedBy: principal.user.id,
        changedAt: now,
        changes: { ...written, slug },
      });
      return slug;
    });
    return toCompany({ ...row, slug, invested_fund_ids: [] });
  },
});
