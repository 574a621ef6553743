import type { Knex } from 'knex';
import type { Scope } from '../../core/principal.ts';
import { scoped } from './util.ts';

export interface CompanyLogoRow {
  company_id: string;
  firm_id: string;
  filename: string;
  content_type: string;
  size: number;
  content: Buffer;
  uploaded_at: string;
}

export function companyLogosRepo(db: Knex) {
  return {
    /** Stores a company's logo in place of any earlier one and points the company's logo_url at it. */
    async replace(logo: CompanyLogoRow, logoUrl: string): Promise<void> {
      await db('company_logos').insert(logo).onConflict('company_id').merge();
      await db('companies')
        .where({ id: logo.company_id, firm_id: logo.firm_id })
        .update({ logo_url: logoUrl, updated_at: logo.uploaded_at });
    },
    /** The logo of a company the scope can see, or undefined. */
    async get(scope: Scope, companyId: string): Promise<CompanyLogoRow | undefined> {
      const row = (await scoped(db('company_logos'), scope, 'company_logos')
        .where('company_logos.company_id', companyId)
        .first()) as CompanyLogoRow | undefined;
      return row && { ...row, size: Number(row.size), content: Buffer.from(row.content) };
    },
  };
}
export type CompanyLogosRepo = ReturnType<typeof companyLogosRepo>;
