import type { Knex } from 'knex';

// A firm's choices about figures read from spreadsheets, in a table of their own: a column on `firms`
// would have to be dropped on the way down, and SQLite drops one by rebuilding the table, which takes
// every row that references a firm with it. No row means the defaults (every proposal reviewed).
export async function up(knex: Knex): Promise<void> {
  await knex.schema.createTable('firm_extraction_settings', (t) => {
    t.string('firm_id', 32).primary().references('firms.id').onDelete('CASCADE');
    t.boolean('auto_confirm').notNullable().defaultTo(false);
    t.string('updated_at', 32).notNullable();
  });
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.dropTable('firm_extraction_settings');
}
