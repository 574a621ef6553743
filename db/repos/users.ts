import type { Knex } from 'knex';
import type { User } from '../../core/principal.ts';
import { kept } from '../kept.ts';
import type { Counted, Page } from '../types.ts';
import { bool, countAndPage, whereInJson } from './util.ts';

export function toUser(row: User): User {
  return {
    ...row,
    all_companies: bool(row.all_companies),
    can_view_documents: bool(row.can_view_documents),
    can_edit_cap_table: bool(row.can_edit_cap_table),
    is_active: bool(row.is_active),
  };
}

/**
 * The name and e-mail of users of a firm (company leads beside every page of companies): kept, with the
 * ids as one bound JSON array, so every page's list of leads is one statement.
 */
const contactsOf = kept((db, p: { firmId: string; ids: string }) =>
  whereInJson(db, db('users').where('firm_id', p.firmId), 'id', p.ids).select(
    'id',
    'first_name',
    'last_name',
    'email',
  ),
);

export function usersRepo(db: Knex) {
  return {
    async get(id: string): Promise<User | undefined> {
      const row = await db<User>('users').where({ id }).first();
      return row && toUser(row);
    },
    async getByEmail(email: string): Promise<User | undefined> {
      const row = await db<User>('users').whereRaw('lower(email) = ?', [email.toLowerCase()]).first();
      return row && toUser(row);
    },
    async list(firmId: string, filter: { email?: string }, page: Page): Promise<Counted<User>> {
      const base = db('users').where({ firm_id: firmId });
      if (filter.email) base.whereRaw('lower(email) = ?', [filter.email.toLowerCase()]);
      const result = await countAndPage<User>(db, base, page, (qb) =>
        qb.orderBy([{ column: 'email' }, { column: 'id' }]),
      );
      return { count: result.count, rows: result.rows.map(toUser) };
    },
    /** Company ids the user is limited to, or null when the user sees every company of the firm. */
    async companyAccess(user: User): Promise<string[] | null> {
      if (user.all_companies) return null;
      const rows = await db('user_companies').where({ user_id: user.id }).select('company_id');
      return rows.map((r: { company_id: string }) => r.company_id);
    },
    async create(user: User, companyIds: string[] = []): Promise<User> {
      await db.transaction(async (trx) => {
        await trx('users').insert(user);
        if (companyIds.length > 0) {
          await trx('user_companies').insert(
            companyIds.map((company_id) => ({ user_id: user.id, company_id })),
          );
        }
      });
      return user;
    },
    /** Adds a company to the list of a user whose access is limited to listed companies. */
    async grantCompany(userId: string, companyId: string): Promise<void> {
      await db('user_companies').insert({ user_id: userId, company_id: companyId }).onConflict().ignore();
    },
    /** Name ("first last") and e-mail of the users of a firm among these ids. */
    async contacts(firmId: string, ids: string[]): Promise<Map<string, { name: string; email: string }>> {
      if (ids.length === 0) return new Map();
      const rows = await contactsOf.rows<Pick<User, 'id' | 'first_name' | 'last_name' | 'email'>>(db, {
        firmId,
        ids: JSON.stringify(ids),
      });
      return new Map(
        rows.map((r) => [r.id, { name: `${r.first_name} ${r.last_name}`.trim(), email: r.email }]),
      );
    },
    /** The active users of a firm among these ids. */
    async activeInFirm(firmId: string, ids: string[]): Promise<Set<string>> {
      if (ids.length === 0) return new Set();
      const rows = (await db('users')
        .where({ firm_id: firmId })
        .whereIn('id', ids)
        .select('id', 'is_active')) as { id: string; is_active: unknown }[];
      return new Set(rows.filter((r) => bool(r.is_active)).map((r) => r.id));
    },
    async setActive(id: string, active: boolean): Promise<void> {
      await db('users').where({ id }).update({ is_active: active });
    },
  };
}
export type UsersRepo = ReturnType<typeof usersRepo>;
