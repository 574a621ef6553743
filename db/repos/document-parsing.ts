import { setImmediate as yieldToOthers } from 'node:timers/promises';
import type { Knex } from 'knex';
import type { Scope } from '../../core/principal.ts';
import { type Hit, passage, trailingWordStart, WordFinder } from '../../core/search-text.ts';
import { newId } from '../ids.ts';
import { isPostgres } from '../knex.ts';
import { SEARCHED_CHARS } from '../migrations/014-document-parsing.ts';
import { TEXT_SEARCH_CONFIG } from '../migrations/023-search-stemming.ts';
import type { Counted, Page } from '../types.ts';
import { type ProposalInsert, storeProposals } from './proposal-inserts.ts';

export type { ProposalInsert };

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
/** A document whose parse was just recorded, as its change event names it. */
export interface ParsedDocument {
  firm_id: string;
  company_id: string;
  name: string;
  parse_state: string;
  parse_note: string | null;
}

export type ParseOutcome =
  | {
      state: 'completed';
      text: string;
      format: string;
      pages: number | null;
      cut?: string;
      /** Figures read from a spreadsheet; with `review`, the document needs a person (needs-input). */
      proposals?: { rows: ProposalInsert[]; review: string | undefined };
    }
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
/** Characters kept before and after an occurrence, enough for its passage (width 160). */
const CONTEXT = 200;
/** Statements PostgreSQL runs side by side for the texts of a page whose words lie past their starts. */
const PARALLEL_READS = 4;
/** Statements that look for the place of a word far into a batch of texts, each after the last one's place. */
const DATABASE_ROUNDS = 4;

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

/** The passage around a hit in `text`, a window of a longer text: from `at` on, `from` where it starts in the whole, `full` when more may follow. */
function passageAround(text: string, hit: Hit, finder: WordFinder, at: number, from: number, full: boolean) {
  // The window starts on a word boundary so that a part of a word is never taken for a word.
  let start = Math.max(at, hit.start - CONTEXT);
  const boundary = text.slice(start, hit.start).search(/[^\p{L}\p{N}]/u);
  start = boundary === -1 ? hit.start : start + boundary;
  const to = Math.min(text.length, hit.end + CONTEXT);
  return passage(text.slice(start, to), finder, undefined, {
    before: from + start > 0,
    after: to < text.length || full,
  });
}

/** The first characters of a text as its passage, when no word is seen in it (the tokenizers differ in places). */
function headPassage(start: string, finder: WordFinder): string {
  const head = start.slice(0, indexOfCodePoint(start, 2 * CONTEXT));
  return passage(head, finder, undefined, { before: false, after: head.length < start.length });
}

/**
 * The passage of a text from its first FIRST_READ characters, or, when no word occurs there with enough
 * text after it, the character (on a word boundary) where the search goes on.
 */
function passageInStart(start: string, finder: WordFinder): { passage: string } | { from: number } {
  const full = codePoints(start) === FIRST_READ;
  const hit = finder.first(start);
  // A hit with too little text after it is taken again further on, with its text.
  if (hit && (!full || hit.end + CONTEXT <= start.length)) {
    return { passage: passageAround(start, hit, finder, 0, 0, full) };
  }
  // The whole text was read and no word seen in it.
  if (!full) return { passage: headPassage(start, finder) };
  return { from: codePoints(start.slice(0, hit ? hit.start : trailingWordStart(start))) };
}

/** A text whose passage lies past its start: searched from character `from`, next from `at`. */
interface Deep {
  id: string;
  from: number;
  at: number;
}

interface PlaceRow {
  id: string;
  place: number | string | null;
  w0: number | string | null;
  around: string | null;
  bytes: number | string | null;
}

/**
 * One statement for a batch of texts: in each, the first place at or after its `at` where one of the
 * query's words begins (as a substring of the lower-cased text), and the few hundred characters around
 * it, with the bytes before it (to tell whether all before it was ASCII). Each text is read, lower-cased
 * and searched once, however many words are looked for; the words are ASCII, so only ASCII letters are
 * lower-cased (collation "C", the fastest).
 */
async function placesOf(db: Knex, texts: readonly Deep[], prefixes: readonly string[]): Promise<PlaceRow[]> {
  const pg = isPostgres(db);
  // A subquery the planner may not merge into the one around it, so each value is computed once.
  const fence = pg ? 'offset 0' : 'limit -1 offset 0';
  const finds = prefixes.map(() => `nullif(${pg ? 'strpos' : 'instr'}(low, ?), 0)`);
  const NONE = 2_147_483_647;
  const first = pg
    ? `least(${finds.join(', ')})`
    : finds.length === 1
      ? finds[0]
      : `nullif(min(${finds.map((f) => `coalesce(${f}, ${NONE})`).join(', ')}), ${NONE})`;
  const bytes = pg ? 'octet_length(substr(s, 1, place))' : 'length(cast(substr(s, 1, place) as blob))';
  // Enough past the searched window to show an occurrence at its very end.
  const read = SEARCHED_CHARS + 2 * CONTEXT;
  const sql = `with f(id, at) as (values ${texts.map(() => '(?, cast(? as integer))').join(', ')})
    select id, place, w0, substr(s, w0 + 1, place - w0 + ${2 * CONTEXT}) as around, ${bytes} as bytes
    from (select id, s, place, ${pg ? 'greatest' : 'max'}(place - ${CONTEXT}, 0) as w0
      from (select id, s, ${first} - 1 as place
        from (select id, s, lower(s${pg ? ' collate "C"' : ''}) as low
          from (select f.id, substr(t.text, f.at + 1, ${read} - f.at) as s
            from f join document_texts t on t.document_id = f.id ${fence}) a ${fence}) b ${fence}) c) d`;
  const result = await db.raw(sql, [...texts.flatMap((t) => [t.id, t.at]), ...prefixes]);
  return (pg ? result.rows : result) as PlaceRow[];
}

/**
 * Passages of texts whose words occur past their starts, found in the database: a few statements for the
 * whole batch (see placesOf), each taking up the texts whose place was inside a longer word. A text is
 * left out when that does not settle it (a character outside ASCII before the place, a word outside
 * ASCII, no place found).
 */
async function passagesFoundInDatabase(
  db: Knex,
  texts: readonly Deep[],
  finder: WordFinder,
): Promise<Map<string, string>> {
  const found = new Map<string, string>();
  const prefixes = finder.asciiPrefixes;
  if (prefixes.length === 0) return found;
  let open = [...texts];
  for (let round = 0; round < DATABASE_ROUNDS && open.length > 0; round++) {
    const rows = new Map((await placesOf(db, open, prefixes)).map((r) => [r.id, r]));
    const next: Deep[] = [];
    for (const text of open) {
      const row = rows.get(text.id);
      if (row?.place == null || row.around == null) continue;
      const place = Number(row.place);
      const start = text.at + Number(row.w0);
      if (Number(row.bytes) !== place || text.at + place >= SEARCHED_CHARS) continue;
      const around = row.around;
      const boundary = start === text.from ? 0 : around.search(/[^\p{L}\p{N}]/u);
      const hit = boundary === -1 ? undefined : finder.first(around, boundary);
      if (hit?.start === text.at + place - start) {
        const full = codePoints(around) === text.at + place - start + 2 * CONTEXT;
        const to = Math.min(around.length, hit.end + CONTEXT);
        found.set(
          text.id,
          passage(around.slice(boundary, to), finder, undefined, {
            before: start + boundary > 0,
            after: to < around.length || full,
          }),
        );
      } else {
        // The place was inside a longer word ("churn" in "churning"): look again after it.
        next.push({ ...text, at: text.at + place + 1 });
      }
    }
    open = next;
  }
  return found;
}

/** The passage of a text past its start, from the rest of its searched window read whole. */
async function passageFurtherIn(
  db: Knex,
  documentId: string,
  finder: WordFinder,
  from: number,
  start: string,
): Promise<string> {
  const readFrom = Math.max(0, from - CONTEXT);
  const text = await sliceOf(db, documentId, readFrom, SEARCHED_CHARS - readFrom);
  const at = indexOfCodePoint(text, from - readFrom);
  const hit = finder.first(text, at);
  const full = codePoints(text) === SEARCHED_CHARS - readFrom;
  return hit ? passageAround(text, hit, finder, at, readFrom, full) : headPassage(start, finder);
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
     * Records how a claimed job ended, with its text; run inside a transaction (services/document-parsing.ts
     * adds the change event to it). Undefined when the claim is no longer held (its lease ran out and
     * another worker took the job): nothing is written then.
     */
    async finish(job: ParseJob, outcome: ParseOutcome, at: string): Promise<ParsedDocument | undefined> {
      const review = outcome.state === 'completed' ? outcome.proposals?.review : undefined;
      const updated = await db('documents')
        .where({ id: job.id, parse_claim: job.claim, parse_state: 'in-progress' })
        .update({
          parse_state: review ? 'needs-input' : outcome.state,
          parsed_at: at,
          parse_claim: null,
          parse_claimed_until: null,
          // A completed document's note says why its text was cut, if it was; one needing input, why.
          parse_note:
            (review ?? (outcome.state === 'completed' ? outcome.cut : outcome.reason))?.slice(0, 255) ?? null,
        });
      if (updated !== 1) return undefined;
      if (outcome.state === 'completed' && outcome.proposals)
        await storeProposals(db, job.id, outcome.proposals.rows, at);
      await db('document_texts').where('document_id', job.id).delete();
      if (outcome.state === 'completed') {
        await db('document_texts').insert({
          document_id: job.id,
          text: outcome.text,
          format: outcome.format,
          source_pages: outcome.pages,
          char_count: outcome.text.length,
          created_at: at,
        });
      }
      return (await db('documents')
        .where({ id: job.id })
        .first('firm_id', 'company_id', 'name', 'parse_state', 'parse_note')) as ParsedDocument;
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
        db,
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
     * A passage of each document's text around the first occurrence of any form of any of `words` (see
     * passage), reading slices of the texts, never a whole one where it can be helped: the starts of
     * TEXTS_PER_READ texts in one statement, then, for the texts without a word in their start, the place
     * of a word found by the database for many of them at once (placesOf): on PostgreSQL all of them in
     * PARALLEL_READS statements side by side, on SQLite TEXTS_PER_READ at a time. Other requests run
     * between the statements.
     */
    async passages(documentIds: readonly string[], words: readonly string[]): Promise<Map<string, string>> {
      const finder = new WordFinder(words);
      const found = new Map<string, string>();
      const deep: Deep[] = [];
      const startsOfDeep = new Map<string, string>();
      for (let i = 0; i < documentIds.length; i += TEXTS_PER_READ) {
        const starts = await startsOf(db, documentIds.slice(i, i + TEXTS_PER_READ), FIRST_READ);
        for (const id of documentIds.slice(i, i + TEXTS_PER_READ)) {
          const start = starts.get(id) ?? '';
          const outcome = passageInStart(start, finder);
          if ('passage' in outcome) found.set(id, outcome.passage);
          else {
            deep.push({ id, from: outcome.from, at: outcome.from });
            startsOfDeep.set(id, start);
          }
        }
        await yieldToOthers();
      }
      if (deep.length === 0) return found;
      // PostgreSQL works on a few statements side by side; SQLite, on this thread, one batch at a time.
      const pg = isPostgres(db);
      const size = pg ? Math.ceil(deep.length / PARALLEL_READS) : TEXTS_PER_READ;
      const batches = Array.from({ length: Math.ceil(deep.length / size) }, (_, b) =>
        deep.slice(b * size, (b + 1) * size),
      );
      const placed = pg
        ? await Promise.all(batches.map((batch) => passagesFoundInDatabase(db, batch, finder)))
        : [];
      if (!pg) {
        for (const batch of batches) {
          placed.push(await passagesFoundInDatabase(db, batch, finder));
          await yieldToOthers();
        }
      }
      for (const map of placed) for (const [id, text] of map) found.set(id, text);
      for (const text of deep) {
        if (found.has(text.id)) continue;
        await yieldToOthers();
        found.set(
          text.id,
          await passageFurtherIn(db, text.id, finder, text.from, startsOfDeep.get(text.id) ?? ''),
        );
      }
      return found;
    },
  };
}
export type DocumentParsingRepo = ReturnType<typeof documentParsingRepo>;
