import type { Knex } from 'knex';
import type { Scope } from '../../core/principal.ts';
import { newId } from '../ids.ts';
import { isPostgres } from '../knex.ts';
import { SEARCHED_CHARS } from '../migrations/014-document-parsing.ts';
import type { Counted, Page } from '../types.ts';
import { eventsRepo } from './events.ts';
import { countAndPage, type QB, scoped } from './util.ts';

export interface ParseJob {
  id: string;
  /** Token of this claim: only its holder may finish or release the job. */
  claim: string;
  attempts: number;
}

export interface ParseFile {
  content: Buffer;
  content_type: string;
  filename: string;
}

/** How a parse ended; text only when completed. */
export type ParseOutcome =
  | { state: 'completed'; text: string; format: string; pages: number | null; cut?: string }
  | { state: 'not-parseable' | 'needs-input'; reason: string };

export interface ClaimOptions {
  now: Date;
  leaseMs: number;
  limit: number;
  /** A job claimed this often without finishing (its node kept dying) ends not-parseable. */
  maxAttempts: number;
}

export interface DocumentContentRow {
  id: string;
  name: string;
  parse_state: string;
  parsed_at: string | null;
  parse_note: string | null;
  text: string | null;
  source_pages: number | null;
}

export interface DocumentSearchFilter {
  /** Words that must all occur in the text (see searchWords). */
  words: readonly string[];
  companyId?: string;
}

export interface DocumentSearchRow {
  id: string;
  name: string;
  company_id: string;
  company_name: string;
  uploaded_at: string;
  text: string;
}

/** Open jobs: never started, or started by a worker whose lease ran out (a seeded row has no lease). */
function claimable(qb: QB, at: string): QB {
  return qb
    .where('documents.parse_state', 'not-started')
    .orWhere((w) =>
      w
        .where('documents.parse_state', 'in-progress')
        .andWhere((l) =>
          l.whereNull('documents.parse_claimed_until').orWhere('documents.parse_claimed_until', '<', at),
        ),
    );
}

export function documentParsingRepo(db: Knex) {
  return {
    /**
     * Claims up to `limit` open jobs, oldest upload first, in one transaction: on PostgreSQL the rows
     * are locked with SKIP LOCKED so concurrent workers take different jobs; SQLite transactions here
     * are immediate, so a claim runs alone. Jobs out of attempts end not-parseable instead.
     */
    async claim(options: ClaimOptions): Promise<ParseJob[]> {
      const at = options.now.toISOString();
      const until = new Date(options.now.getTime() + options.leaseMs).toISOString();
      return db.transaction(async (trx) => {
        const pick = claimable(trx('documents'), at)
          .orderBy([{ column: 'documents.uploaded_at' }, { column: 'documents.id' }])
          .limit(options.limit)
          .select('documents.id', 'documents.parse_attempts');
        if (isPostgres(trx)) pick.forUpdate().skipLocked();
        const rows = (await pick) as { id: string; parse_attempts: number }[];
        const jobs: ParseJob[] = [];
        for (const row of rows) {
          const attempts = Number(row.parse_attempts);
          if (attempts >= options.maxAttempts) {
            await trx('documents')
              .where('id', row.id)
              .update({
                parse_state: 'not-parseable',
                parsed_at: at,
                parse_claim: null,
                parse_claimed_until: null,
                parse_note: `gave up after ${attempts} attempts that did not finish`,
              });
            continue;
          }
          const claim = newId();
          await trx('documents')
            .where('id', row.id)
            .update({
              parse_state: 'in-progress',
              parse_claim: claim,
              parse_claimed_until: until,
              parse_attempts: attempts + 1,
            });
          jobs.push({ id: row.id, claim, attempts: attempts + 1 });
        }
        return jobs;
      });
    },

    /** The stored file of a document, for the worker (no caller scope: the worker serves every firm). */
    async file(documentId: string): Promise<ParseFile | undefined> {
      const row = (await db('documents')
        .join('document_files', 'document_files.id', 'documents.file_id')
        .where('documents.id', documentId)
        .first('document_files.content', 'document_files.content_type', 'document_files.filename')) as
        | ParseFile
        | undefined;
      return row && { ...row, content: Buffer.from(row.content) };
    },

    /**
     * Records how a claimed job ended, with its text, in one transaction. False when the claim is no
     * longer held (its lease ran out and another worker took the job): nothing is written then.
     */
    async finish(job: ParseJob, outcome: ParseOutcome, now: Date): Promise<boolean> {
      const at = now.toISOString();
      return db.transaction(async (trx) => {
        const updated = await trx('documents')
          .where({ id: job.id, parse_claim: job.claim, parse_state: 'in-progress' })
          .update({
            parse_state: outcome.state,
            parsed_at: at,
            parse_claim: null,
            parse_claimed_until: null,
            // A completed document's note says why its text was cut, if it was.
            parse_note: (outcome.state === 'completed' ? outcome.cut : outcome.reason)?.slice(0, 255) ?? null,
          });
        if (updated !== 1) return false;
        // The parse's change event, in its transaction (the outbox): metadata only, never the text.
        const doc = (await trx('documents')
          .where({ id: job.id })
          .first('firm_id', 'company_id', 'name', 'parse_note')) as
          | { firm_id: string; company_id: string; name: string; parse_note: string | null }
          | undefined;
        if (doc) {
          await eventsRepo(trx).append({
            firmId: doc.firm_id,
            type: 'document.parsed',
            companyId: doc.company_id,
            actorType: 'system',
            actorId: null,
            occurredAt: at,
            resourceType: 'document',
            resourceId: job.id,
            data: {
              id: job.id,
              company_id: doc.company_id,
              name: doc.name,
              parse_state: outcome.state,
              parsed_at: at,
              parse_note: doc.parse_note,
              ...(outcome.state === 'completed'
                ? { format: outcome.format, pages: outcome.pages, char_count: outcome.text.length }
                : {}),
            },
          });
        }
        await trx('document_texts').where('document_id', job.id).delete();
        if (outcome.state === 'completed') {
          await trx('document_texts').insert({
            document_id: job.id,
            text: outcome.text,
            format: outcome.format,
            source_pages: outcome.pages,
            char_count: outcome.text.length,
            created_at: at,
          });
        }
        return true;
      });
    },

    /**
     * Gives a claimed job back unfinished, to be taken again at once: a worker stopping takes its claim
     * back; `countAttempt` keeps it (the parse died from outside and may do so again).
     */
    async release(job: ParseJob, options: { countAttempt?: boolean } = {}): Promise<void> {
      await db('documents')
        .where({ id: job.id, parse_claim: job.claim, parse_state: 'in-progress' })
        .update({
          parse_state: 'not-started',
          parse_claim: null,
          parse_claimed_until: null,
          parse_attempts: options.countAttempt ? job.attempts : job.attempts - 1,
        });
    },

    /** A visible document's parse state with its text, if any. */
    async content(scope: Scope, documentId: string): Promise<DocumentContentRow | undefined> {
      const row = (await scoped(db('documents'), scope, 'documents')
        .leftJoin('document_texts', 'document_texts.document_id', 'documents.id')
        .where('documents.id', documentId)
        .first(
          'documents.id',
          'documents.name',
          'documents.parse_state',
          'documents.parsed_at',
          'documents.parse_note',
          'document_texts.text',
          'document_texts.source_pages',
        )) as DocumentContentRow | undefined;
      return row && { ...row, source_pages: row.source_pages === null ? null : Number(row.source_pages) };
    },

    /** Visible documents whose text holds every word, best match first (then newest upload, then id). */
    async search(
      scope: Scope,
      filter: DocumentSearchFilter,
      page: Page,
    ): Promise<Counted<DocumentSearchRow>> {
      if (filter.words.length === 0) return { count: 0, rows: [] };
      const base = scoped(db('documents'), scope, 'documents').join(
        'document_texts',
        'document_texts.document_id',
        'documents.id',
      );
      let rank: (qb: QB) => QB;
      if (isPostgres(db)) {
        const text = filter.words.join(' ');
        // The same expression as the index, so the index serves the match.
        const vector = `to_tsvector('simple', left(document_texts.text, ${SEARCHED_CHARS}))`;
        base.whereRaw(`${vector} @@ plainto_tsquery('simple', ?)`, [text]);
        // Normalised by length (1), as bm25 is on SQLite, so both databases rank alike.
        rank = (qb) => qb.orderByRaw(`ts_rank(${vector}, plainto_tsquery('simple', ?), 1) desc`, [text]);
      } else {
        // Each word quoted, so FTS5 operators and punctuation in a query are plain text.
        const expr = filter.words.map((w) => `"${w.replaceAll('"', '""')}"`).join(' ');
        base
          .join('document_texts_fts', 'document_texts_fts.document_id', 'documents.id')
          .whereRaw('document_texts_fts match ?', [expr]);
        rank = (qb) => qb.orderByRaw('bm25(document_texts_fts)');
      }
      if (filter.companyId) base.where('documents.company_id', filter.companyId);
      return countAndPage<DocumentSearchRow>(
        base,
        page,
        (qb) =>
          rank(qb).orderBy([{ column: 'documents.uploaded_at', order: 'desc' }, { column: 'documents.id' }]),
        (qb) =>
          qb
            .join('companies', 'companies.id', 'documents.company_id')
            .select(
              'documents.id',
              'documents.name',
              'documents.company_id',
              'documents.uploaded_at',
              'companies.name as company_name',
              'document_texts.text',
            ),
      );
    },
  };
}
export type DocumentParsingRepo = ReturnType<typeof documentParsingRepo>;
