import type { Knex } from 'knex';

// A row of a spreadsheet that could not be mapped is one proposal holding its figures, instead of one
// proposal per cell: a person maps the row, not each cell, and a large workbook's unmapped rows were
// most of what its parse stored. The figures are a JSON column rather than a table of their own: they
// are only ever read, corrected and settled with their row, and a row of their own per figure is the
// cost this removes. The figures are `[[cell, date, cadence, value], …]` (the row's kind and currency are
// the proposal's own). Each proposal also keeps the line of the sheet its label is on, and its sheet's place
// in the workbook: sheets are listed in the workbook's order, not by name ("Sheet10" before "Sheet2").
export async function up(knex: Knex): Promise<void> {
  await knex.schema.alterTable('extraction_proposals', (t) => {
    t.integer('sheet_row');
    t.integer('sheet_index');
    t.text('figures');
  });
}

// On the way down an unmapped row's proposal keeps its label and first cell; its figures go with the column.
export async function down(knex: Knex): Promise<void> {
  await knex.schema.alterTable('extraction_proposals', (t) => {
    t.dropColumn('figures');
    t.dropColumn('sheet_row');
    t.dropColumn('sheet_index');
  });
}
