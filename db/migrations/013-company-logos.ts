import type { Knex } from 'knex';

// A company's uploaded logo, kept in the database so every node serves it; one per company, replaced
// by the next upload.
export async function up(knex: Knex): Promise<void> {
  await knex.schema.createTable('company_logos', (t) => {
    t.string('company_id', 32).primary().references('companies.id').onDelete('CASCADE');
    t.string('firm_id', 32).notNullable().references('firms.id').onDelete('CASCADE');
    t.string('filename', 255).notNullable();
    t.string('content_type', 127).notNullable();
    t.integer('size').notNullable();
    t.binary('content').notNullable();
    t.string('uploaded_at', 32).notNullable();
  });
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.dropTable('company_logos');
}
