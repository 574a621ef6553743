import type { Knex } from 'knex';
import type { Scope } from '../../core/principal.ts';
import type { Counted, Page } from '../types.ts';
import { chunk, countAndPage, scoped } from './util.ts';

/** A founder or other person at a company who answers its information requests. */
export interface ContactRow {
  id: string;
  firm_id: string;
  company_id: string;
  name: string;
  /** Stored in lower case: one address is one contact per company, whatever its spelling. */
  email: string;
  created_by: string | null;
  created_at: string;
  updated_at: string;
}

/** The contacts of companies: read by the firm, written by the contacts service only. */
export function contactsRepo(db: Knex) {
  return {
    /** A company's contacts the caller may see, by name. */
    async list(scope: Scope, companyId: string, page: Page): Promise<Counted<ContactRow>> {
      const base = scoped(db('company_contacts'), scope, 'company_contacts').where(
        'company_contacts.company_id',
        companyId,
      );
      return countAndPage<ContactRow>(db, base, page, (qb) =>
        qb.orderBy([{ column: 'company_contacts.name' }, { column: 'company_contacts.id' }]),
      );
    },
    async get(firmId: string, companyId: string, id: string): Promise<ContactRow | undefined> {
      return db<ContactRow>('company_contacts').where({ firm_id: firmId, company_id: companyId, id }).first();
    },
    /** The contacts of each company, by name, keyed by company id. */
    async ofCompanies(firmId: string, companyIds: readonly string[]): Promise<Map<string, ContactRow[]>> {
      const out = new Map<string, ContactRow[]>();
      for (const ids of chunk([...new Set(companyIds)], 500)) {
        const rows = (await db('company_contacts')
          .where('firm_id', firmId)
          .whereIn('company_id', ids)
          .orderBy([{ column: 'company_id' }, { column: 'name' }, { column: 'id' }])) as ContactRow[];
        for (const r of rows) out.set(r.company_id, [...(out.get(r.company_id) ?? []), r]);
      }
      return out;
    },
    /** The contact of a company with this address (stored lower case), if any. */
    async byEmail(companyId: string, email: string): Promise<ContactRow | undefined> {
      return db<ContactRow>('company_contacts').where({ company_id: companyId, email }).first();
    },
    async insert(...rows: ContactRow[]): Promise<void> {
      for (const batch of chunk(rows, 500)) if (batch.length > 0) await db('company_contacts').insert(batch);
    },
    async update(id: string, fields: Pick<ContactRow, 'name' | 'email' | 'updated_at'>): Promise<void> {
      await db('company_contacts').where({ id }).update(fields);
    },
    /** Deletes a contact; its founder links go with it. */
    async delete(id: string): Promise<void> {
      await db('company_contacts').where({ id }).delete();
    },
  };
}
export type ContactsRepo = ReturnType<typeof contactsRepo>;
