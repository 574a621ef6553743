import { setImmediate as yieldToOthers } from 'node:timers/promises';
import type { Knex } from 'knex';
import { type Clock, systemClock } from '../../core/clock.ts';
import type { ProposalInsert } from '../../db/repos/document-parsing.ts';
import type { SheetGrid } from '../../parsing/grid.ts';
import {
  type Extraction,
  type ExtractionContext,
  extractFigures,
  HIGH_CONFIDENCE,
  type Target,
  type UnmappedRow,
} from './tables.ts';

/** What a parse's grids come to for its document: proposal rows, and why a person is needed, if one is. */
export type Proposer = (
  documentId: string,
  grids: readonly SheetGrid[],
) => Promise<{ rows: ProposalInsert[]; review: string | undefined }>;

interface CategoryRow {
  id: string;
  name: string;
  is_standard: boolean | number;
}

/**
 * An unmapped row as one proposal holding its figures, or two when it has budget figures beside its
 * actuals (they are written to different places); a row whose only figures are forecasts is still
 * listed, by its label's cell, with nothing to write.
 */
function unmappedProposals(u: UnmappedRow, sheetIndex: number | null): ProposalInsert[] {
  const kinds = u.figures.length > 0 ? [...new Set(u.figures.map((f) => f.kind))] : (['actual'] as const);
  return kinds.map((kind) => {
    const figures = u.figures.filter((f) => f.kind === kind);
    return {
      sheet: u.sheet.slice(0, 255),
      sheet_index: sheetIndex,
      sheet_row: u.row,
      cell: figures[0]?.cell ?? `A${u.row}`,
      row_label: u.label.slice(0, 255),
      category_id: null,
      date: null,
      cadence: null,
      value: null,
      currency: figures[0]?.currency ?? null,
      kind,
      confidence: 0,
      figures: figures.map((f) => ({ cell: f.cell, date: f.date, cadence: f.cadence, value: f.value })),
    };
  });
}

/**
 * Proposes data points from a parsed spreadsheet in the company's calendar and currency, with its
 * custom metrics and the labels it confirmed before; rows it cannot map are kept with no category.
 */
export function createProposer(db: Knex, clock: Clock = systemClock): Proposer {
  return async (documentId, grids) => {
    const doc = (await db('documents as d')
      .join('companies as c', 'c.id', 'd.company_id')
      .where('d.id', documentId)
      .first('d.firm_id', 'd.company_id', 'c.fiscal_year_end', 'c.reporting_currency as currency')) as
      | { firm_id: string; company_id: string; fiscal_year_end: string; currency: string | null }
      | undefined;
    if (!doc) return { rows: [], review: undefined };
    const categories = (await db('metric_categories')
      .where((q) => q.whereNull('firm_id').orWhere('firm_id', doc.firm_id))
      .andWhere('is_archived', false)
      .select('id', 'name', 'is_standard')) as CategoryRow[];
    const labels = (await db('extraction_labels')
      .where({ company_id: doc.company_id })
      .select('label', 'category_id')) as { label: string; category_id: string }[];
    const standard = new Map(categories.filter((c) => c.is_standard).map((c) => [c.name, c.id]));
    const byId = new Set(categories.map((c) => c.id));
    const standardName = new Map(categories.filter((c) => c.is_standard).map((c) => [c.id, c.name]));
    const context: ExtractionContext = {
      fyEndMonth: Number(doc.fiscal_year_end.slice(0, 2)) || 12,
      today: clock.now().toISOString().slice(0, 10),
      currency: doc.currency,
      customMetrics: categories.filter((c) => !c.is_standard).map((c) => ({ id: c.id, name: c.name })),
      remembered: new Map(
        labels
          .filter((l) => byId.has(l.category_id))
          .map((l): [string, Target] => {
            const name = standardName.get(l.category_id);
            return [l.label, name ? { category: name } : { custom_metric_id: l.category_id }];
          }),
      ),
    };
    // Sheet by sheet, letting the event loop go between them: a workbook of many sheets is not read in
    // one stretch of the server's time.
    const result: Extraction = { proposals: [], unmapped: [] };
    for (const grid of grids) {
      const sheet = extractFigures([grid], context);
      result.proposals.push(...sheet.proposals);
      result.unmapped.push(...sheet.unmapped);
      await yieldToOthers();
    }
    const idOf = (target: Target) =>
      'category' in target ? (standard.get(target.category) ?? null) : target.custom_metric_id;
    // Each sheet's place in the workbook, so that listings keep its order ("Sheet10" after "Sheet2").
    const sheetIndex = new Map(grids.map((g, i) => [g.name, i] as const));
    const rows: ProposalInsert[] = result.proposals.map((p) => ({
      sheet: p.sheet.slice(0, 255),
      sheet_index: sheetIndex.get(p.sheet) ?? null,
      sheet_row: p.row,
      cell: p.cell,
      row_label: p.row_label.slice(0, 255),
      category_id: idOf(p.target),
      date: p.date,
      cadence: p.cadence,
      value: p.value,
      currency: p.currency,
      kind: p.kind,
      confidence: p.confidence,
    }));
    for (const u of result.unmapped) rows.push(...unmappedProposals(u, sheetIndex.get(u.sheet) ?? null));
    const open =
      result.unmapped.length +
      new Set(
        rows
          .filter((r) => r.category_id !== null && r.confidence < HIGH_CONFIDENCE)
          .map((r) => `${r.sheet}|${r.row_label}`),
      ).size;
    const review = open > 0 ? `${open} row${open === 1 ? '' : 's'} of figures need review` : undefined;
    return { rows, review };
  };
}
