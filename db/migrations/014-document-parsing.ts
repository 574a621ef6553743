import type { Knex } from 'knex';
import { isPostgres } from '../dialect.ts';

/** Only this much of a document's text is indexed for search (a tsvector holds at most 1 MB). */
export const SEARCHED_CHARS = 300_000;

// The parse queue lives on the documents themselves, so every document that arrives 'not-started'
// (seed, import, upload) is a job: a worker claims it with a lease and a claim token, and a claim
// whose lease ran out (its node died) is taken again. The extracted text is searched like notes.
export async function up(knex: Knex): Promise<void> {
  await knex.schema.alterTable('documents', (t) => {
    t.integer('parse_attempts').notNullable().defaultTo(0);
    t.string('parse_claim', 32);
    t.string('parse_claimed_until', 32);
    t.string('parse_note', 255);
    t.index(['parse_state', 'uploaded_at']);
  });
  await knex.schema.createTable('document_texts', (t) => {
    t.string('document_id', 32).primary().references('documents.id').onDelete('CASCADE');
    t.text('text').notNullable();
    t.string('format', 16).notNullable();
    t.integer('source_pages');
    t.integer('char_count').notNullable();
    t.string('created_at', 32).notNullable();
  });
  if (isPostgres(knex)) {
    await knex.raw(
      `create index document_texts_search on document_texts using gin (to_tsvector('simple', left(text, ${SEARCHED_CHARS})))`,
    );
    return;
  }
  await knex.raw('create virtual table document_texts_fts using fts5(text, document_id unindexed)');
  await knex.raw(`create trigger document_texts_fts_insert after insert on document_texts begin
    insert into document_texts_fts (text, document_id) values (substr(new.text, 1, ${SEARCHED_CHARS}), new.document_id);
  end`);
  await knex.raw(`create trigger document_texts_fts_delete after delete on document_texts begin
    delete from document_texts_fts where document_id = old.document_id;
  end`);
  await knex.raw(`create trigger document_texts_fts_update after update of text, document_id on document_texts begin
    delete from document_texts_fts where document_id = old.document_id;
    insert into document_texts_fts (text, document_id) values (substr(new.text, 1, ${SEARCHED_CHARS}), new.document_id);
  end`);
}

export async function down(knex: Knex): Promise<void> {
  if (!isPostgres(knex)) {
    for (const t of ['insert', 'delete', 'update'])
      await knex.raw(`drop trigger if exists document_texts_fts_${t}`);
    await knex.raw('drop table if exists document_texts_fts');
  }
  await knex.schema.dropTable('document_texts');
  await knex.schema.alterTable('documents', (t) => {
    t.dropIndex(['parse_state', 'uploaded_at']);
    t.dropColumn('parse_attempts');
    t.dropColumn('parse_claim');
    t.dropColumn('parse_claimed_until');
    t.dropColumn('parse_note');
  });
}
