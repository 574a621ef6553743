import { setImmediate as yieldToOthers } from 'node:timers/promises';
import type { Knex } from 'knex';
import { newId } from '../ids.ts';
import { isPostgres } from '../knex.ts';
import { encodeFigures, type ProposalRow, type RowFigure } from './extraction.ts';

/**
 * A figure read from a spreadsheet, or a row that could not be mapped (`category_id` null) with its
 * figures: a stored proposal (db/repos/extraction.ts) before it has an id, a status and a category's name.
 */
export type ProposalInsert = Omit<
  ProposalRow,
  'id' | 'category_name' | 'is_standard' | 'status' | 'figures' | 'sheet_index'
> & {
  /** The sheet's place in the workbook, from 0. */
  sheet_index?: number | null;
  /** An unmapped row's figures (its date, cadence and value then null). */
  figures?: readonly RowFigure[];
};

/**
 * Proposals inserted per statement. On SQLite a statement holds the event loop while it runs: 100
 * (an unmapped row with its figures among them) are 3 to 5 ms of work on an idle machine. On PostgreSQL
 * the server waits for the database, and a statement carries a column's values as one array, so a
 * slice costs one small statement to parse and plan whatever its size; what bounds it there is the
 * event loop, held while node-postgres writes the arrays out (2,000 rows held it 110 to 170 ms).
 */
const PROPOSAL_SLICE = { sqlite: 100, postgres: 500 };

/** The stored columns of a proposal, with the PostgreSQL array type each is sent as. */
const COLUMNS = {
  id: 'text',
  firm_id: 'text',
  company_id: 'text',
  document_id: 'text',
  sheet: 'text',
  sheet_index: 'integer',
  sheet_row: 'integer',
  cell: 'text',
  row_label: 'text',
  category_id: 'text',
  date: 'text',
  cadence: 'text',
  value: 'text',
  currency: 'text',
  kind: 'text',
  confidence: 'double precision',
  figures: 'text',
  status: 'text',
  created_at: 'text',
} as const;
type Stored = Record<keyof typeof COLUMNS, string | number | null>;

/**
 * On PostgreSQL, one INSERT … SELECT FROM unnest(…) per slice: a parameter per column, not per value.
 * A VALUES list of 200 rows binds 3,800 parameters, and the server parses and plans each such statement
 * anew; 34 of them took most of the time a large workbook spent being recorded.
 */
function insertByColumn(trx: Knex, rows: Stored[]) {
  const names = Object.keys(COLUMNS) as (keyof typeof COLUMNS)[];
  return trx.raw(
    `insert into extraction_proposals (${names.map((n) => `"${n}"`).join(', ')}) select * from unnest(${names
      .map((n) => `?::${COLUMNS[n]}[]`)
      .join(', ')})`,
    // node-postgres sends a JavaScript array as one array parameter.
    names.map((n) => rows.map((r) => r[n])) as unknown as readonly Knex.RawBinding[],
  );
}

/** Replaces a document's open proposals with those of its latest parse; settled ones stay. */
export async function storeProposals(
  trx: Knex,
  documentId: string,
  rows: ProposalInsert[],
  at: string,
): Promise<void> {
  const doc = (await trx('documents').where({ id: documentId }).first('firm_id', 'company_id')) as
    | { firm_id: string; company_id: string }
    | undefined;
  if (!doc) return;
  await trx('extraction_proposals').where({ document_id: documentId, status: 'proposed' }).delete();
  const record = ({ figures, ...row }: ProposalInsert): Stored => ({
    id: newId(),
    ...doc,
    document_id: documentId,
    ...row,
    sheet_index: row.sheet_index ?? null,
    figures: figures ? encodeFigures(figures) : null,
    status: 'proposed',
    created_at: at,
  });
  // Inserted in slices: SQLite binds at most 32,766 values in one statement. Between slices the event
  // loop is let go: on SQLite each insert runs synchronously, and thousands in a row held the server.
  const postgres = isPostgres(trx);
  const slice = PROPOSAL_SLICE[postgres ? 'postgres' : 'sqlite'];
  for (let i = 0; i < rows.length; i += slice) {
    if (i > 0) await yieldToOthers();
    const stored = rows.slice(i, i + slice).map(record);
    await (postgres ? insertByColumn(trx, stored) : trx('extraction_proposals').insert(stored));
  }
}
