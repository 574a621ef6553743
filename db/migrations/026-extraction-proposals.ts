import type { Knex } from 'knex';

// Figures read from uploaded spreadsheets: each proposed data point with the cell it came from, and
// the rows that could not be mapped (category_id null), until a person confirms or rejects them; and
// the labels a company's confirmations taught.
export async function up(knex: Knex): Promise<void> {
  await knex.schema.createTable('extraction_proposals', (t) => {
    t.string('id', 32).primary();
    t.string('firm_id', 32).notNullable().references('firms.id').onDelete('CASCADE');
    t.string('company_id', 32).notNullable().references('companies.id').onDelete('CASCADE');
    t.string('document_id', 32).notNullable().references('documents.id').onDelete('CASCADE');
    t.string('sheet', 255).notNullable();
    t.string('cell', 16).notNullable();
    t.string('row_label', 255).notNullable();
    t.string('category_id', 32).references('metric_categories.id').onDelete('CASCADE');
    t.string('date', 10);
    t.string('cadence', 16);
    t.string('value', 64);
    t.string('currency', 3);
    t.string('kind', 8).notNullable();
    t.double('confidence').notNullable();
    t.string('status', 16).notNullable().defaultTo('proposed');
    t.string('created_at', 32).notNullable();
    t.index(['document_id', 'status']);
  });
  await knex.schema.createTable('extraction_labels', (t) => {
    t.string('company_id', 32).notNullable().references('companies.id').onDelete('CASCADE');
    t.string('label', 255).notNullable();
    t.string('category_id', 32).notNullable().references('metric_categories.id').onDelete('CASCADE');
    t.string('created_at', 32).notNullable();
    t.primary(['company_id', 'label']);
  });
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.dropTable('extraction_labels');
  await knex.schema.dropTable('extraction_proposals');
}
