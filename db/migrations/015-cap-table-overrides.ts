import type { Knex } from 'knex';

// A fund's ownership of a company and a company's post-money valuation as the firm states them on a
// date; the investment metrics report the latest one on or before their as-of date instead of the
// figure derived from shares and rounds.
export async function up(knex: Knex): Promise<void> {
  await knex.schema.createTable('ownership_overrides', (t) => {
    t.string('id', 32).primary();
    t.string('firm_id', 32).notNullable().references('firms.id').onDelete('CASCADE');
    t.string('company_id', 32).notNullable().references('companies.id').onDelete('CASCADE');
    t.string('fund_id', 32).notNullable().references('funds.id').onDelete('CASCADE');
    t.string('date', 10).notNullable();
    // A fraction from 0 to 1, as an exact decimal string.
    t.text('ownership_percentage').notNullable();
    t.string('created_at', 32).notNullable();
    t.unique(['company_id', 'fund_id', 'date']);
    t.index(['firm_id', 'company_id']);
  });
  await knex.schema.createTable('post_money_valuation_overrides', (t) => {
    t.string('id', 32).primary();
    t.string('firm_id', 32).notNullable().references('firms.id').onDelete('CASCADE');
    t.string('company_id', 32).notNullable().references('companies.id').onDelete('CASCADE');
    t.string('date', 10).notNullable();
    t.text('post_money_value').notNullable();
    t.string('post_money_currency', 3).notNullable();
    t.text('post_money_fx_rate');
    t.boolean('post_money_is_custom_rate');
    t.string('created_at', 32).notNullable();
    t.unique(['company_id', 'date']);
    t.index(['firm_id', 'company_id']);
  });
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.dropTable('post_money_valuation_overrides');
  await knex.schema.dropTable('ownership_overrides');
}
