import type { Knex } from 'knex';
import type { Scope } from '../../core/principal.ts';
import { isPostgres } from '../knex.ts';
import { TEXT_SEARCH_CONFIG } from '../migrations/023-search-stemming.ts';
import type { Counted, Page } from '../types.ts';
import { countAndPage, type QB, scoped } from './util.ts';

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
  /** Inclusive lower bound on created_at (a date is that day's start). */
  createdFrom?: string;
  /** Exclusive upper bound on created_at. */
  createdBefore?: string;
  /** Oldest first (asc) or newest first (desc, the default). */
  createdAt?: 'asc' | 'desc';
}

export interface NoteSearchFilter {
  /** Words that must all occur in the note (see searchWords). */
  words: readonly string[];
  companyId?: string;
  authorId?: string;
  createdFrom?: string;
  /** Exclusive upper bound on created_at. */
  createdBefore?: string;
}

export interface NoteSearchRow extends NoteRow {
  company_name: string;
}

export function notesRepo(db: Knex) {
  return {
    async list(scope: Scope, filter: NoteFilter, page: Page): Promise<Counted<NoteWithAuthor>> {
      const base = scoped(db('notes'), scope, 'notes');
      if (filter.companyId) base.where('notes.company_id', filter.companyId);
      if (filter.createdFrom) base.where('notes.created_at', '>=', filter.createdFrom);
      if (filter.createdBefore) base.where('notes.created_at', '<', filter.createdBefore);
      return countAndPage<NoteWithAuthor>(
        db,
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
    /** Notes holding every word, best match first (then newest, then by id). */
    async search(scope: Scope, filter: NoteSearchFilter, page: Page): Promise<Counted<NoteSearchRow>> {
      if (filter.words.length === 0) return { count: 0, rows: [] };
      const pg = isPostgres(db);
      const base = scoped(db('notes'), scope, 'notes');
      let rank: (qb: QB) => QB;
      if (pg) {
        const text = filter.words.join(' ');
        const vector = `to_tsvector('${TEXT_SEARCH_CONFIG}', notes.note)`;
        const query = `plainto_tsquery('${TEXT_SEARCH_CONFIG}', ?)`;
        const match = `${vector} @@ ${query}`;
        base.whereRaw(match, [text]);
        // Normalised by length (1), as bm25 is on SQLite, so both databases rank alike.
        rank = (qb) => qb.orderByRaw(`ts_rank(${vector}, ${query}, 1) desc`, [text]);
      } else {
        // Each word quoted, so FTS5 operators and punctuation in a query are plain text.
        const expr = filter.words.map((w) => `"${w.replaceAll('"', '""')}"`).join(' ');
        base.join('notes_fts', 'notes_fts.note_id', 'notes.id').whereRaw('notes_fts match ?', [expr]);
        rank = (qb) => qb.orderByRaw('bm25(notes_fts)');
      }
      if (filter.companyId) base.where('notes.company_id', filter.companyId);
      if (filter.authorId) base.where('notes.author_id', filter.authorId);
      if (filter.createdFrom) base.where('notes.created_at', '>=', filter.createdFrom);
      if (filter.createdBefore) base.where('notes.created_at', '<', filter.createdBefore);
      return countAndPage<NoteSearchRow>(
        db,
        base,
        page,
        (qb) => rank(qb).orderBy([{ column: 'notes.created_at', order: 'desc' }, { column: 'notes.id' }]),
        (qb) =>
          qb
            .join('companies', 'companies.id', 'notes.company_id')
            .select('notes.*', 'companies.name as company_name'),
      );
    },
    /** Whether the company has a note of this author and text (written at `createdAt`, when given). */
    async exists(
      note: Pick<NoteRow, 'company_id' | 'author_id' | 'note'> & { created_at?: string },
    ): Promise<boolean> {
      const match = db('notes').where({
        company_id: note.company_id,
        author_id: note.author_id,
        note: note.note,
      });
      if (note.created_at) match.where({ created_at: note.created_at });
      return !!(await match.first('id'));
    },
    async create(note: NoteRow): Promise<void> {
      await db('notes').insert(note);
    },
    async createMany(notes: NoteRow[]): Promise<void> {
      // Bounded batches keep every insert under SQLite's limit on bound parameters.
      for (let i = 0; i < notes.length; i += 100) await db('notes').insert(notes.slice(i, i + 100));
    },
    /** These notes of the firm with their authors, in the order of `ids`. */
    async withAuthors(firmId: string, ids: string[]): Promise<NoteWithAuthor[]> {
      if (ids.length === 0) return [];
      const rows = (await db('notes')
        .join('users', 'users.id', 'notes.author_id')
        .where('notes.firm_id', firmId)
        .whereIn('notes.id', ids)
        .select(
          'notes.*',
          'users.first_name as author_first_name',
          'users.last_name as author_last_name',
          'users.email as author_email',
        )) as NoteWithAuthor[];
      const byId = new Map(rows.map((r) => [r.id, r]));
      return ids.flatMap((id) => byId.get(id) ?? []);
    },
  };
}
export type NotesRepo = ReturnType<typeof notesRepo>;
