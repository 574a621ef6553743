import { z } from 'zod';
import { NotFound } from '../../core/errors.ts';
import type { ProposalRow, StoredFigures } from '../../db/repos/extraction.ts';
import { defineTool, readOnly, restPaging } from '../define.ts';
import { listOf, pageFields, pageResult, toPage } from '../schemas/page.ts';

const ProposedRow = z.object({
  sheet: z.string(),
  row: z.number().int().describe('Line of the sheet.'),
  label: z.string(),
  category: z.string().nullable().describe('null: not mapped'),
  kind: z.enum(['actual', 'budget']),
  status: z.enum(['proposed', 'confirmed', 'rejected']),
  confidence: z.number(),
  id: z.string().nullable().describe('An unmapped row: one proposal id for all its cells.'),
  cells: z
    .array(z.tuple([z.string().nullable(), z.string(), z.string().nullable(), z.string().nullable()]))
    .describe('[id, cell, date, value]'),
});
type ProposedRow = z.infer<typeof ProposedRow>;

/** A listed table row, an unmapped row's cells left to read until its page is answered. */
interface Entry {
  row: ProposedRow;
  figures: StoredFigures | null;
}

/**
 * Proposals side by side per table row: one entry per sheet, line, label, kind, mapping and status,
 * each cell with its proposal's id; an unmapped row is one proposal, its id given once.
 */
function proposedRows(proposals: readonly ProposalRow[]): Entry[] {
  const rows = new Map<string, Entry>();
  for (const p of proposals) {
    const entry = {
      sheet: p.sheet,
      row: p.sheet_row,
      label: p.row_label,
      category: p.category_name,
      kind: p.kind,
      status: p.status,
      confidence: p.confidence,
    };
    if (p.figures) {
      rows.set(p.id, { row: { ...entry, id: p.id, cells: [] }, figures: p.figures });
      continue;
    }
    const key = JSON.stringify([
      p.sheet,
      p.sheet_row,
      p.row_label,
      p.kind,
      p.category_id,
      p.status,
      p.cadence,
    ]);
    let listed = rows.get(key);
    if (!listed) {
      listed = { row: { ...entry, id: null, cells: [] }, figures: null };
      rows.set(key, listed);
    }
    listed.row.cells.push([p.id, p.cell, p.date, p.value]);
    listed.row.confidence = Math.min(listed.row.confidence, p.confidence);
  }
  return [...rows.values()];
}

/** A listed row with its cells: an unmapped row's figures, read now. */
function withCells({ row, figures }: Entry): ProposedRow {
  if (!figures) return row;
  return { ...row, cells: figures.list.map((f) => [null, f.cell, f.date, f.value]) };
}

export const listDocumentProposals = defineTool({
  name: 'list_document_proposals',
  title: 'Spreadsheet proposals',
  description: 'Figures read from a spreadsheet, per table row.',
  input: z.object({
    ...pageFields,
    document_id: z.string().min(1).describe('Document id.'),
  }),
  output: listOf(ProposedRow),
  annotations: readOnly,
  permission: 'documents',
  routes: [
    {
      method: 'GET',
      path: '/v1/documents/:document_id/proposals/',
      summary: 'List the figures proposed from a spreadsheet',
      rename: { ...restPaging },
      envelope: 'page',
    },
  ],
  async handler(ctx, input) {
    const doc = await ctx.repos.extraction.document(ctx.principal.scope, input.document_id);
    if (!doc) throw new NotFound(`no document with id ${input.document_id}; list_documents lists valid ids`);
    const all = proposedRows(await ctx.repos.extraction.proposals(doc.id));
    const { offset, limit } = toPage(input);
    return pageResult(input, { count: all.length, rows: all.slice(offset, offset + limit) }, withCells);
  },
});
