import { z } from 'zod';
import { nowIso } from '../../db/ids.ts';
import type { CompanyChanges } from '../../db/repos/companies.ts';
import { inTransaction } from '../../db/repos/index.ts';
import { defineTool } from '../define.ts';
import { InvalidInput, MissingParameter, NotFound } from '../errors.ts';
import { Company, toCompany } from '../schemas/company.ts';
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

function notFound(id: string): NotFound {
  return new NotFound(`no company with id ${id}; call list_companies or search_companies for valid ids`);
}

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
  async handler(ctx, input) {
    const given = FIELDS.filter((f) => input[f] !== undefined);
    if (given.length === 0) {
      const message = `give at least one of ${FIELDS.join(', ')}`;
      throw new MissingParameter(
        `nothing to change: ${message}`,
        FIELDS.map((field) => ({ field, message })),
      );
    }
    const { principal } = ctx;
    const company = await ctx.repos.companies.find(principal.scope, { id: input.company_id });
    if (!company) throw notFound(input.company_id);
    const lead = input.investment_lead_id;
    if (lead && !(await ctx.repos.users.activeInFirm(principal.firm.id, [lead])).has(lead)) {
      throw InvalidInput.field(
        'investment_lead_id',
        `no active user of your firm has id ${lead}; call list_users for valid ids`,
      );
    }

    const changes: CompanyChanges = {};
    const log: Record<string, { from: unknown; to: unknown }> = {};
    for (const field of given) {
      const to = field === 'fiscal_year_end' ? storedFiscalYearEnd(input[field]!) : input[field];
      if (to === company[field]) continue;
      Object.assign(changes, { [field]: to });
      log[field] = { from: company[field], to };
    }
    const now = nowIso(ctx.clock.now());
    if (Object.keys(changes).length > 0) {
      await inTransaction(ctx.repos, async (repos) => {
        if (!(await repos.companies.update(principal.firm.id, company.id, changes, now))) {
          throw notFound(input.company_id);
        }
        await repos.changeLog.record({
          firmId: principal.firm.id,
          entity: 'companies',
          entityId: company.id,
          action: 'update',
          changedBy: principal.user.id,
          changedAt: now,
          changes: log,
        });
      });
    }
    const updated = await ctx.repos.companies.get(principal.scope, company.id);
    if (!updated) throw notFound(input.company_id);
    return toCompany(updated);
  },
});
