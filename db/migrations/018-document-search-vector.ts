import type { Knex } from 'knex';
import { isPostgres } from '../dialect.ts';
import { SEARCHED_CHARS } from './014-document-parsing.ts';

// PostgreSQL keeps each text's search vector, computed once when the text is written, instead of an
// index over an expression: ranking a match (ts_rank) then reads the stored vector rather than tokenising
// up to 300,000 characters of every hit again. SQLite's FTS5 table already stores what bm25 needs.
export async function up(knex: Knex): Promise<void> {
  if (!isPostgres(knex)) return;
  await knex.raw(
    `alter table document_texts add column search_vector tsvector generated always as (to_tsvector('simple', left(text, ${SEARCHED_CHARS}))) stored`,
  );
  await knex.raw('create index document_texts_search_vector on document_texts using gin (search_vector)');
  await knex.raw('drop index document_texts_search');
}

export async function down(knex: Knex): Promise<void> {
  if (!isPostgres(knex)) return;
  await knex.raw(
    `create index document_texts_search on document_texts using gin (to_tsvector('simple', left(text, ${SEARCHED_CHARS})))`,
  );
  await knex.raw('drop index document_texts_search_vector');
  await knex.raw('alter table document_texts drop column search_vector');
}
