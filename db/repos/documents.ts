import type { Knex } from 'knex';
import type { Scope } from '../../core/principal.ts';
import { isPostgres } from '../knex.ts';
import type { Counted, Page } from '../types.ts';
import { countAndPage, scoped } from './util.ts';

export interface DocumentRow {
  id: string;
  firm_id: string;
  company_id: string;
  information_request_id: string | null;
  file_id: string;
  name: string;
  parse_state: string;
  parsed_at: string | null;
  uploaded_at: string;
  submitted_date: string;
  source: string;
}

/** A document as listed: with its company's name. */
export interface ListedDocumentRow extends DocumentRow {
  company_name: string;
}

export interface DocumentFileRow {
  id: string;
  filename: string;
  content_type: string;
  size: number;
  content: Buffer;
}

export interface DocumentFilter {
  companyId?: string;
  parseState?: string;
  source?: string;
  /** Inclusive lower bound on uploaded_at (a date or an instant). */
  uploadedFrom?: string;
  /** Exclusive upper bound on uploaded_at (a date or an instant). */
  uploadedBefore?: string;
}

export function documentsRepo(db: Knex) {
  return {
    async list(scope: Scope, filter: DocumentFilter, page: Page): Promise<Counted<ListedDocumentRow>> {
      const base = scoped(db('documents'), scope, 'documents');
      if (filter.companyId) base.where('documents.company_id', filter.companyId);
      if (filter.parseState) base.where('documents.parse_state', filter.parseState);
      if (filter.source) base.where('documents.source', filter.source);
      // Instants are ISO text, so comparing with a bare date compares with that day's start.
      if (filter.uploadedFrom) base.where('documents.uploaded_at', '>=', filter.uploadedFrom);
      if (filter.uploadedBefore) base.where('documents.uploaded_at', '<', filter.uploadedBefore);
      return countAndPage<ListedDocumentRow>(
        db,
        base,
        page,
        (qb) => qb.orderBy([{ column: 'documents.uploaded_at', order: 'desc' }, { column: 'documents.id' }]),
        (qb) =>
          qb
            .join('companies', 'companies.id', 'documents.company_id')
            .select('documents.*', 'companies.name as company_name'),
      );
    },
    /** The stored file of a visible document, with the name to download it under. */
    async file(scope: Scope, documentId: string): Promise<DocumentFileRow | undefined> {
      const row = (await scoped(db('documents'), scope, 'documents')
        .join('document_files', 'document_files.id', 'documents.file_id')
        .where('documents.id', documentId)
        .first(
          'document_files.id',
          'document_files.filename',
          'document_files.content_type',
          'document_files.size',
          'document_files.content',
        )) as DocumentFileRow | undefined;
      return row && { ...row, size: Number(row.size), content: Buffer.from(row.content) };
    },
    /**
     * Bytes the files of a firm's documents take. With `lock`, inside a transaction, it first takes the
     * firm's storage lock, so a parallel upload counts only after this transaction stored its file (a
     * SQLite transaction holds the write lock from its start already).
     */
    async storedBytes(firmId: string, options: { lock?: boolean } = {}): Promise<number> {
      // NO KEY UPDATE: the rows that reference the firm can still be written meanwhile.
      if (options.lock && isPostgres(db)) await db('firms').where('id', firmId).forNoKeyUpdate().select('id');
      const row = (await db('documents')
        .join('document_files', 'document_files.id', 'documents.file_id')
        .where('documents.firm_id', firmId)
        .sum({ bytes: 'document_files.size' })
        .first()) as { bytes: number | string | null } | undefined;
      return Number(row?.bytes ?? 0);
    },
    /** The names of documents of a firm, by id. */
    async names(firmId: string, ids: readonly string[]): Promise<Map<string, string>> {
      if (ids.length === 0) return new Map();
      const rows = (await db('documents')
        .where('firm_id', firmId)
        .whereIn('id', [...ids])
        .select('id', 'name')) as { id: string; name: string }[];
      return new Map(rows.map((r) => [r.id, r.name]));
    },
    /** Stores a document and its file together. */
    async create(document: DocumentRow, file: DocumentFileRow): Promise<void> {
      await db.transaction(async (trx) => {
        await trx('document_files').insert(file);
        await trx('documents').insert({ ...document, file_id: file.id });
      });
    },

    /** Ends a document's wait for input once its figures are reviewed; false when it was not waiting. */
    async completeReview(documentId: string): Promise<boolean> {
      const n = await db('documents')
        .where({ id: documentId, parse_state: 'needs-input' })
        .update({ parse_state: 'completed', parse_note: null });
      return n === 1;
    },

    /** Puts a parsed document back to waiting for a person, saying why (at most 255 characters). */
    async awaitReview(documentId: string, note: string): Promise<void> {
      await db('documents')
        .where({ id: documentId })
        .whereIn('parse_state', ['completed', 'needs-input'])
        .update({ parse_state: 'needs-input', parse_note: note.slice(0, 255) });
    },
  };
}
export type DocumentsRepo = ReturnType<typeof documentsRepo>;
