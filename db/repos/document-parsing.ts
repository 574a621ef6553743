import { setImmediate as yieldToOthers } from 'node:timers/promises';
import type { Knex } from 'knex';
import type { Scope } from '../../core/principal.ts';
import { passage, trailingWordStart, WordFinder } from '../../core/search-text.ts';
import { newId } from '../ids.ts';
import { isPostgres } from '../knex.ts';
import { SEARCHED_CHARS } from '../migrations/014-document-parsing.ts';
import { TEXT_SEARCH_CONFIG } from '../migrations/023-search-stemming.ts';
import type { Counted, Page } from '../types.ts';
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
}

/** Characters of a text read first when looking for a passage; the rest of the searched window only if needed. */
const FIRST_READ = 20_000;
/** Texts whose first characters one statement reads (SQLite reads each of them whole from disk). */
const TEXTS_PER_READ = 20;
/** Texts PostgreSQL reads at once for passages (SQLite reads on the one thread, one after another). */
const PARALLEL_READS = 4;
/** Characters kept before and after an occurrence, enough for its passage (width 160). */
const CONTEXT = 200;

/** Length in characters, as the databases count them (a UTF-16 surrogate pair is one). */
function codePoints(text: string): number {
  let pairs = 0;
  for (const _ of text.matchAll(/[\uD800-\uDBFF][\uDC00-\uDFFF]/g)) pairs++;
  return text.length - pairs;
}

/** The string index of the `n`th character of `text`. */
function indexOfCodePoint(text: string, n: number): number {
  if (!/[\uD800-\uDBFF]/.test(text)) return Math.min(n, text.length);
  let i = 0;
  for (let k = 0; k < n && i < text.length; k++) i += (text.codePointAt(i) ?? 0) > 0xffff ? 2 : 1;
  return i;
}

/** The first `length` characters of some documents' texts. */
async function startsOf(
  db: Knex,
  documentIds: readonly string[],
  length: number,
): Promise<Map<string, string>> {
  const rows = (await db('document_texts')
    .whereIn('document_id', documentIds)
    .select('document_id', db.raw('substr(text, 1, ?) as slice', [length]))) as {
    document_id: string;
    slice: string;
  }[];
  return new Map(rows.map((r) => [r.document_id, r.slice]));
}

/** `length` characters of a document's text from character `from` (0-based). */
async function sliceOf(db: Knex, documentId: string, from: number, length: number): Promise<string> {
  const row = (await db('document_texts')
    .where('document_id', documentId)
    .first(db.raw('substr(text, ?, ?) as slice', [from + 1, length]))) as { slice: string } | undefined;
  return row?.slice ?? '';
}

/**
 * The passage of a text that is plain ASCII up to the first place where a query word's forms begin, as a
 * substring of the lower-cased text, when that place is a whole word: the database finds the place and
 * reads the few hundred characters around it, so a word far into a text costs no read of all before it.
 * Undefined when that does not settle it (a character outside ASCII first, or a word outside ASCII).
 * `from` is where the search starts, on a word boundary.
 */
async function passageFoundInDatabase(
  db: Knex,
  documentId: string,
  finder: WordFinder,
  from: number,
): Promise<string | undefined> {
  const words = finder.asciiPrefixes;
  if (words.length === 0) return undefined;
  const pg = isPostgres(db);
  const find = pg ? 'strpos' : 'instr';
  const bytes = pg ? 'octet_length(substr(text, ?, ?))' : 'length(cast(substr(text, ?, ?) as blob))';
  let at = from;
  // A place inside a longer word ("churn" in "churning") is passed over, a few times at most.
  for (let tries = 0; tries < 4 && at < SEARCHED_CHARS; tries++) {
    const places = (await db('document_texts')
      .where('document_id', documentId)
      .first(
        db.raw(
          words.map((_, i) => `${find}(lower(substr(text, ?, ?)), ?) as p${i}`).join(', '),
          words.flatMap((w) => [at + 1, SEARCHED_CHARS - at, w]),
        ),
      )) as Record<string, number | string> | undefined;
    const found = words.map((_, i) => Number(places?.[`p${i}`] ?? 0)).filter((p) => p > 0);
    if (found.length === 0) return undefined;
    const place = at + Math.min(...found) - 1;
    const start = Math.max(at, place - CONTEXT);
    const row = (await db('document_texts')
      .where('document_id', documentId)
      .first(
        db.raw(`substr(text, ?, ?) as around, ${bytes} as bytes`, [
          start + 1,
          place - start + 2 * CONTEXT,
          at + 1,
          place - at,
        ]),
      )) as { around: string; bytes: number | string };
    if (Number(row.bytes) !== place - at) return undefined;
    const text = row.around;
    const boundary = start === from ? 0 : text.search(/[^\p{L}\p{N}]/u);
    const hit = boundary === -1 ? undefined : finder.first(text, boundary);
    if (hit?.start === place - start) {
      const full = codePoints(text) === place - start + 2 * CONTEXT;
      const to = Math.min(text.length, hit.end + CONTEXT);
      return passage(text.slice(boundary, to), finder, undefined, {
        before: start + boundary > 0,
        after: to < text.length || full,
      });
    }
    at = place + 1;
  }
  return undefined;
}

/**
 * The passage of one text: reads its first FIRST_READ characters and, only when no word occurs there,
 * the rest of the searched window (the database matched the text there, so a word occurs in it).
 */
async function passageOf(db: Knex, documentId: string, finder: WordFinder, start: string): Promise<string> {
  let readFrom = 0;
  let searchFrom = 0;
  for (const end of [FIRST_READ, SEARCHED_CHARS]) {
    const text = end === FIRST_READ ? start : await sliceOf(db, documentId, readFrom, end - readFrom);
    // A slice as long as asked for may have more text after it.
    const full = codePoints(text) === end - readFrom;
    const last = end === SEARCHED_CHARS || !full;
    const at = indexOfCodePoint(text, searchFrom - readFrom);
    const hit = finder.first(text, at);
    // A hit with too little text after it in this slice is taken again from the next, whole.
    if (hit && (last || hit.end + CONTEXT <= text.length)) {
      // The window starts on a word boundary so that a part of a word is never taken for a word.
      let from = Math.max(at, hit.start - CONTEXT);
      const boundary = text.slice(from, hit.start).search(/[^\p{L}\p{N}]/u);
      from = boundary === -1 ? hit.start : from + boundary;
      const to = Math.min(text.length, hit.end + CONTEXT);
      return passage(text.slice(from, to), finder, undefined, {
        before: readFrom + from > 0,
        after: to < text.length || full,
      });
    }
    if (last) break;
    const resume = hit ? hit.start : trailingWordStart(text);
    searchFrom = readFrom + codePoints(text.slice(0, resume));
    readFrom = Math.max(0, searchFrom - CONTEXT);
    const found = await passageFoundInDatabase(db, documentId, finder, searchFrom);
    if (found !== undefined) return found;
  }
  // The database matched a word this finder does not see (its tokenizer differs in places): the text's start.
  const head = start.slice(0, indexOfCodePoint(start, 2 * CONTEXT));
  return passage(head, finder, undefined, { before: false, after: head.length < start.length });
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
        // Stored when the text was written (migrations 018 and 023) and indexed.
        const vector = 'document_texts.search_vector';
        const query = `plainto_tsquery('${TEXT_SEARCH_CONFIG}', ?)`;
        base.whereRaw(`${vector} @@ ${query}`, [text]);
        // Normalised by length (1), as bm25 is on SQLite, so both databases rank alike.
        rank = (qb) => qb.orderByRaw(`ts_rank(${vector}, ${query}, 1) desc`, [text]);
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
            ),
      );
    },

    /**
     * Visible documents without a text to search, by parse state (only the states some are in): not
     * parsed yet, being parsed, not parseable, or waiting for input.
     */
    async unsearchable(scope: Scope, companyId?: string): Promise<Record<string, number>> {
      const q = scoped(db('documents'), scope, 'documents')
        .leftJoin('document_texts', 'document_texts.document_id', 'documents.id')
        .whereNull('document_texts.document_id')
        .whereNot('documents.parse_state', 'completed');
      if (companyId) q.where('documents.company_id', companyId);
      const rows = (await q
        .groupBy('documents.parse_state')
        .select('documents.parse_state')
        .count({ n: '*' })) as {
        parse_state: string;
        n: number | string;
      }[];
      return Object.fromEntries(rows.map((r) => [r.parse_state, Number(r.n)]));
    },

    /**
     * A passage of each document's text around the first occurrence of any of `words` (see passage),
     * reading slices of the texts, never a whole one: the starts of TEXTS_PER_READ texts at a time, and
     * further only for a text without a word in its start. Other requests run between two texts.
     */
    async passages(documentIds: readonly string[], words: readonly string[]): Promise<Map<string, string>> {
      const finder = new WordFinder(words);
      const found = new Map<string, string>();
      for (let i = 0; i < documentIds.length; i += TEXTS_PER_READ) {
        const batch = documentIds.slice(i, i + TEXTS_PER_READ);
        const starts = await startsOf(db, batch, FIRST_READ);
        let next = 0;
        const reader = async () => {
          while (next < batch.length) {
            const id = batch[next++]!;
            await yieldToOthers();
            found.set(id, await passageOf(db, id, finder, starts.get(id) ?? ''));
          }
        };
        await Promise.all(Array.from({ length: isPostgres(db) ? PARALLEL_READS : 1 }, reader));
      }
      return found;
    },
  };
}
export type DocumentParsingRepo = ReturnType<typeof documentParsingRepo>;
