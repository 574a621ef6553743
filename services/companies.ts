import { InvalidInput, NotFound } from '../core/errors.ts';
import { slugify } from '../core/slug.ts';
import { newId } from '../db/ids.ts';
import type { CompanyChanges, CompanyColumns, CompanyRow, NewCompany } from '../db/repos/companies.ts';
import type { CompanyLogoRow } from '../db/repos/company-logos.ts';
import { type Recorder, record, type ServiceContext, withRecorder } from './changes.ts';

/** Status of a new company: the investment status the portfolio reads use (active, exited, written-off …). */
export const NEW_COMPANY_STATUS = 'active';

/** Room left in the 255-character slug for a "-N" suffix. */
const SLUG_BASE_MAX = 240;

/** The fields a caller gives a new company; the rest are the firm's defaults. */
export type NewCompanyFields = Pick<
  CompanyRow,
  'name' | 'description' | 'city' | 'sector' | 'fiscal_year_end' | 'website' | 'logo_url'
>;

/** A company as written: the stored row, or the columns an import sets. */
export type CompanyRecord = { id: string } & { [K in keyof CompanyRow]?: CompanyRow[K] | null };

function notFound(id: string): NotFound {
  return new NotFound(`no company with id ${id}; call list_companies or search_companies for valid ids`);
}

/** The event data of a company: the record as it is, without the firm. */
export function companyData(company: CompanyRecord): Record<string, unknown> {
  const { firm_id: _firm, ...data } = company;
  return data;
}

/** Records a company written by any path (a tool, the importer): its change-log row and event. */
export async function recordCompany(
  r: Recorder,
  company: CompanyRecord,
  action: 'create' | 'update',
  changes: Record<string, unknown>,
): Promise<void> {
  await record(r, {
    change: { entity: 'companies', entityId: company.id, action, changes },
    event: {
      type: action === 'create' ? 'company.created' : 'company.updated',
      companyId: company.id,
      resourceType: 'company',
      resourceId: company.id,
      data: companyData(company),
    },
  });
}

/**
 * Adds a company under a slug its caller chose (an import names it), in the recorder's transaction,
 * with its change-log row and event.
 */
export async function insertCompany(
  r: Recorder,
  company: Omit<NewCompany, 'firm_id' | 'created_at' | 'updated_at'>,
) {
  const row: NewCompany = { ...company, firm_id: r.firmId, created_at: r.at, updated_at: r.at };
  await r.repos.companies.create(row);
  const { id: _id, firm_id: _firm, created_at: _c, updated_at: _u, ...written } = row;
  await recordCompany(r, row, 'create', written);
}

/**
 * Writes `changes` to a stored company of the recorder's firm, in the recorder's transaction, and
 * records each as from its value in `company` to the new one; false when the company does not exist.
 */
export async function changeCompany(
  r: Recorder,
  company: CompanyRecord,
  changes: CompanyColumns,
): Promise<boolean> {
  if (!(await r.repos.companies.update(r.firmId, company.id, changes, r.at))) return false;
  const log = Object.fromEntries(
    Object.entries(changes).map(([field, to]) => [
      field,
      { from: company[field as keyof CompanyRow] ?? null, to },
    ]),
  );
  await recordCompany(r, { ...company, ...changes, updated_at: r.at }, 'update', log);
  return true;
}

/** Adds a company under a slug free in the firm; a creator limited to listed companies is granted it. */
export async function createCompany(ctx: ServiceContext, fields: NewCompanyFields): Promise<CompanyRow> {
  const { principal } = ctx;
  const base = slugify(fields.name).slice(0, SLUG_BASE_MAX).replace(/-$/, '') || 'company';
  return withRecorder(ctx, async (repos, recorder) => {
    const row: Omit<CompanyRow, 'slug'> = {
      id: newId(),
      firm_id: principal.firm.id,
      ...fields,
      firm_sector: '',
      status: NEW_COMPANY_STATUS,
      unique_ref: '',
      reporting_currency: principal.firm.preferred_currency,
      investment_lead_id: null,
      created_at: recorder.at,
      updated_at: recorder.at,
    };
    const slug = await repos.companies.createWithFreeSlug(row, base);
    // A creator limited to listed companies must still see what they created.
    if (!principal.user.all_companies) await repos.users.grantCompany(principal.user.id, row.id);
    const company = { ...row, slug };
    const { id: _id, firm_id: _firm, created_at: _c, updated_at: _u, ...written } = company;
    await recordCompany(recorder, company, 'create', written);
    return company;
  });
}

/** Changes the given fields of one visible company; a field given its current value is no change. */
export async function updateCompany(ctx: ServiceContext, companyId: string, given: CompanyChanges) {
  const { principal } = ctx;
  const company = await ctx.repos.companies.find(principal.scope, { id: companyId });
  if (!company) throw notFound(companyId);
  const lead = given.investment_lead_id;
  if (lead && !(await ctx.repos.users.activeInFirm(principal.firm.id, [lead])).has(lead)) {
    throw InvalidInput.field(
      'investment_lead_id',
      `no active user of your firm has id ${lead}; call list_users for valid ids`,
    );
  }
  const changes: CompanyChanges = {};
  for (const [field, to] of Object.entries(given) as [keyof CompanyChanges, unknown][]) {
    if (to === undefined || to === company[field]) continue;
    Object.assign(changes, { [field]: to });
  }
  if (Object.keys(changes).length > 0) {
    await withRecorder(ctx, async (_repos, recorder) => {
      if (!(await changeCompany(recorder, company, changes))) throw notFound(companyId);
    });
  }
  const updated = await ctx.repos.companies.get(principal.scope, company.id);
  if (!updated) throw notFound(companyId);
  return updated;
}

/** Replaces a company's logo; the company's logo_url now points at it. */
export async function replaceLogo(
  ctx: ServiceContext,
  company: CompanyRow,
  logo: Omit<CompanyLogoRow, 'company_id' | 'firm_id' | 'uploaded_at'>,
  logoUrl: string,
): Promise<void> {
  await withRecorder(ctx, async (repos, recorder) => {
    await repos.companyLogos.replace(
      { ...logo, company_id: company.id, firm_id: company.firm_id, uploaded_at: recorder.at },
      logoUrl,
    );
    const { filename, content_type, size } = logo;
    await recordCompany(recorder, { ...company, logo_url: logoUrl }, 'update', {
      logo_url: logoUrl,
      logo: { filename, content_type, size },
    });
  });
}
