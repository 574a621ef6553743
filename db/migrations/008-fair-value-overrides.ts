import type { Knex } from 'knex';

// A fund's own valuation of its position in a company on a date; fund returns take the latest one
// on or before their as-of date instead of shares × price (a write-off is an override of 0).
export async function up(knex: Knex): Promise<void> {
  await knex.schema.createTable('fair_value_overrides', (t) => {
    t.string('id', 32).primary();
    t.string('firm_id', 32).notNullable().references('firms.id').onDelete('CASCADE');
    t.string('company_id', 32).notNullable().references('companies.id').onDelete('CASCADE');
    t.string('fund_id', 32).notNullable().references('funds.id').onDelete('CASCADE');
    t.string('date', 10).notNullable();
    t.text('fair_value_value').notNullable();
    t.string('fair_value_currency', 3).notNullable();
    t.text('fair_value_fx_rate');
    t.boolean('fair_value_is_custom_rate');
    t.string('created_at', 32).notNullable();
    t.unique(['company_id', 'fund_id', 'date']);
    t.index(['firm_id', 'company_id']);
  });
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.dropTable('fair_value_overrides');
}
