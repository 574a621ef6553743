import { z } from 'zod';
import type { CompanyRow } from '../../db/repos/companies.ts';
import type { ToolContext } from '../context.ts';
import { InvalidInput, NotFound } from '../errors.ts';

export interface CompanyRef {
  company_id?: string;
  company_slug?: string;
}

/** The `company_id` parameter and the optional `company_slug` alternative REST needs. */
export function companyRefFields(what: string) {
  return {
    company_id: z.string().min(1).optional().describe(`Only ${what} of this company id.`),
    company_slug: z
      .string()
      .min(1)
      .optional()
      .describe(`Only ${what} of the company with this slug; an alternative to company_id.`),
  };
}

function notFound(what: string): NotFound {
  return new NotFound(`no company with ${what}; call list_companies or search_companies for valid ids`);
}

/**
 * The visible company named by company_id and/or company_slug, or undefined when neither is given.
 * A company of another firm, or outside the caller's access, is not found exactly like an unknown one.
 */
export async function resolveCompany(ctx: ToolContext, ref: CompanyRef): Promise<CompanyRow | undefined> {
  const scope = ctx.principal.scope;
  let byId: CompanyRow | undefined;
  if (ref.company_id) {
    byId = await ctx.repos.companies.find(scope, { id: ref.company_id });
    if (!byId) throw notFound(`id ${ref.company_id}`);
  }
  if (!ref.company_slug) return byId;
  const bySlug = await ctx.repos.companies.find(scope, { slug: ref.company_slug });
  if (!bySlug) throw notFound(`slug ${ref.company_slug}`);
  if (byId && byId.id !== bySlug.id) {
    throw InvalidInput.field(
      'company_slug',
      `names a different company than company_id ${ref.company_id}; give only one of them`,
    );
  }
  return bySlug;
}
