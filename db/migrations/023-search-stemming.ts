import type { Knex } from 'knex';
import { isPostgres } from '../dialect.ts';
import { SEARCHED_CHARS } from './014-document-parsing.ts';

// Search finds a word's other forms ("pricing" finds "priced" and "prices") alike on both databases:
// SQLite's FTS5 tables are rebuilt with the porter tokenizer over unicode61, PostgreSQL's note index and
// document vectors use the 'english' configuration (Porter's successor, Snowball, and its stop words,
// which the service takes out of every query on both). The triggers of migrations 009 and 014 keep
// filling the rebuilt tables, which keep their names.
/** PostgreSQL's text search configuration for notes and documents, as their indexes are built. */
export const TEXT_SEARCH_CONFIG = 'english';
const STEMMED = "tokenize = 'porter unicode61 remove_diacritics 2'";

async function rebuildSqlite(knex: Knex, tokenize: string): Promise<void> {
  await knex.raw('drop table notes_fts');
  await knex.raw(`create virtual table notes_fts using fts5(note, note_id unindexed${tokenize})`);
  await knex.raw('insert into notes_fts (note, note_id) select note, id from notes');
  await knex.raw('drop table document_texts_fts');
  await knex.raw(
    `create virtual table document_texts_fts using fts5(text, document_id unindexed${tokenize})`,
  );
  await knex.raw(
    `insert into document_texts_fts (text, document_id) select substr(text, 1, ${SEARCHED_CHARS}), document_id from document_texts`,
  );
}

async function rebuildPostgres(knex: Knex, config: 'english' | 'simple'): Promise<void> {
  await knex.raw('drop index notes_note_search');
  await knex.raw(`create index notes_note_search on notes using gin (to_tsvector('${config}', note))`);
  // Dropping the column drops its index.
  await knex.raw('alter table document_texts drop column search_vector');
  await knex.raw(
    `alter table document_texts add column search_vector tsvector generated always as (to_tsvector('${config}', left(text, ${SEARCHED_CHARS}))) stored`,
  );
  await knex.raw('create index document_texts_search_vector on document_texts using gin (search_vector)');
}

export async function up(knex: Knex): Promise<void> {
  if (isPostgres(knex)) await rebuildPostgres(knex, TEXT_SEARCH_CONFIG);
  else await rebuildSqlite(knex, `, ${STEMMED}`);
}

export async function down(knex: Knex): Promise<void> {
  if (isPostgres(knex)) await rebuildPostgres(knex, 'simple');
  else await rebuildSqlite(knex, '');
}
