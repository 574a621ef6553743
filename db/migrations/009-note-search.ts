import type { Knex } from 'knex';
import { isPostgres } from '../dialect.ts';

// Full-text search over notes. SQLite keeps its own FTS5 copy keyed by note id (not by rowid, which
// VACUUM may renumber on a table without an integer primary key), synced by triggers; PostgreSQL
// indexes the 'simple' tsvector, which like FTS5's unicode61 tokenizer does no stemming (migration 023
// adds stemming to both).
export async function up(knex: Knex): Promise<void> {
  if (isPostgres(knex)) {
    await knex.raw("create index notes_note_search on notes using gin (to_tsvector('simple', note))");
    return;
  }
  await knex.raw('create virtual table notes_fts using fts5(note, note_id unindexed)');
  await knex.raw('insert into notes_fts (note, note_id) select note, id from notes');
  await knex.raw(`create trigger notes_fts_insert after insert on notes begin
    insert into notes_fts (note, note_id) values (new.note, new.id);
  end`);
  await knex.raw(`create trigger notes_fts_delete after delete on notes begin
    delete from notes_fts where note_id = old.id;
  end`);
  await knex.raw(`create trigger notes_fts_update after update of note, id on notes begin
    delete from notes_fts where note_id = old.id;
    insert into notes_fts (note, note_id) values (new.note, new.id);
  end`);
}

export async function down(knex: Knex): Promise<void> {
  if (isPostgres(knex)) {
    await knex.raw('drop index if exists notes_note_search');
    return;
  }
  for (const t of ['insert', 'delete', 'update']) await knex.raw(`drop trigger if exists notes_fts_${t}`);
  await knex.raw('drop table if exists notes_fts');
}
