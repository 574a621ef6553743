import type { Knex } from 'knex';

// Every row the demo seed creates with a credential written in the source (firms, users, OAuth
// applications, tokens), so the server can refuse a public address while any of them is left.
export async function up(knex: Knex): Promise<void> {
  await knex.schema.createTable('demo_marks', (t) => {
    t.string('kind', 16).notNullable();
    t.string('id', 32).notNullable();
    t.string('label', 255).notNullable();
    t.primary(['kind', 'id']);
  });
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.dropTable('demo_marks');
}
