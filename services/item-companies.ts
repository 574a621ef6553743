import { type FieldError, InvalidInput, MissingParameter, ToolError } from '../core/errors.ts';
import type { CompanyRow } from '../db/repos/companies.ts';
import type { ServiceContext } from './changes.ts';

/** The company reference of one item of a write: company_id or company_slug, or both naming the same company. */
export interface ItemCompanyRef {
  company_id?: string | undefined;
  company_slug?: string | undefined;
}

/** Throws one error naming every field, of the kind that fits them all (missing, else invalid). */
export function throwFieldErrors(errors: FieldError[], what: string): void {
  if (errors.length === 0) return;
  const summary = errors.map((e) => `${e.field}: ${e.message}`).join('; ');
  if (errors.every((e) => e.message.startsWith('is required'))) {
    throw new MissingParameter(`missing ${summary}`, errors);
  }
  throw new InvalidInput(`invalid ${what}: ${summary}`, errors);
}

/**
 * The visible company of each item, in item order. An item without a reference, or whose id and slug
 * name different companies, is a 400 naming `items[i]…`; an id or slug of another firm or of a
 * company the caller cannot access is a 404 (as reads answer it), also naming each such field.
 */
export async function resolveItemCompanies(
  ctx: ServiceContext,
  items: ItemCompanyRef[],
): Promise<CompanyRow[]> {
  const scope = ctx.principal.scope;
  const ids = [...new Set(items.flatMap((i) => (i.company_id ? [i.company_id] : [])))];
  const slugs = [...new Set(items.flatMap((i) => (i.company_slug ? [i.company_slug] : [])))];
  const byId = await ctx.repos.companies.names(scope, ids);
  const bySlug = await ctx.repos.companies.bySlugs(scope, slugs);

  const invalid: FieldError[] = [];
  const unknown: FieldError[] = [];
  const found: CompanyRow[] = [];
  items.forEach((item, i) => {
    const at = `items[${i}]`;
    if (!item.company_id && !item.company_slug) {
      invalid.push({ field: `${at}.company_id`, message: 'is required (or give company_slug)' });
      return;
    }
    const a = item.company_id ? byId.get(item.company_id) : undefined;
    const b = item.company_slug ? bySlug.get(item.company_slug) : undefined;
    if (item.company_id && !a) {
      unknown.push({
        field: `${at}.company_id`,
        message: `no company with id ${item.company_id}; call list_companies or search_companies for valid ids`,
      });
    }
    if (item.company_slug && !b) {
      unknown.push({
        field: `${at}.company_slug`,
        message: `no company with slug ${item.company_slug}; call list_companies or search_companies for valid slugs`,
      });
    }
    if (a && b && a.id !== b.id) {
      invalid.push({
        field: `${at}.company_slug`,
        message: `names a different company than company_id ${item.company_id}; give only one of them`,
      });
    }
    const company = a ?? b;
    if (company) found[i] = company;
  });
  throwFieldErrors(invalid, 'items');
  if (unknown.length > 0) {
    const detail = unknown.map((e) => `${e.field}: ${e.message}`).join('; ');
    throw new ToolError(404, 'not_found', detail, unknown);
  }
  return found;
}
