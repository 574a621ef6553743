import type { Knex } from 'knex';
import type { Scope } from '../../core/principal.ts';
import type { Counted, Page } from '../types.ts';
import { countAndPage, scoped } from './util.ts';

export interface NoteRow {
  id: string;
  firm_id: string;
  company_id: string;
  author_id: string;
  note: string;
  created_at: string;
}

export interface NoteWithAuthor extends NoteRow {
  author_first_name: string;
  author_last_name: string;
  author_email: string;
}

export interface NoteFilter {
  companyId?: string;
  /** Oldest first (asc) or newest first (desc, the default). */
  createdAt?: 'asc' | 'desc';
}

export function notesRepo(db: Knex) {
  return {
    async list(scope: Scope, filter: NoteFilter, page: Page): Promise<Counted<NoteWithAuthor>> {
      const base = scoped(db('notes'), scope, 'notes');
      if (filter.companyId) base.where('notes.company_id', filter.companyId);
      return countAndPage<NoteWithAuthor>(
        base,
        page,
        (qb) =>
          qb.orderBy([
            { column: 'notes.created_at', order: filter.createdAt ?? 'desc' },
            { column: 'notes.id' },
          ]),
        (qb) =>
          qb
            .join('users', 'users.id', 'notes.author_id')
            .select(
              'notes.*',
              'users.first_name as author_first_name',
              'users.last_name as author_last_name',
              'users.email as author_email',
            ),
      );
    },
    async create(note: NoteRow): Promise<void> {
      await db('notes').insert(note);
    },
  };
}
export type NotesRepo = ReturnType<typeof notesRepo>;
