import type { Knex } from 'knex';
import type { Scope } from '../../core/principal.ts';
import { isPostgres } from '../knex.ts';
import { chunk, scoped } from './util.ts';

/** Rows a statement settles or remembers at most (4 parameters each: within SQLite's and PostgreSQL's limits). */
const SETTLE_BATCH = 500;

/** How many rows a raw UPDATE changed: PostgreSQL's rowCount, SQLite's changes. */
function changedRows(result: unknown): number {
  const r = result as { rowCount?: number | null; changes?: number };
  return Number(r.rowCount ?? r.changes ?? 0);
}

/** A figure of a row that could not be mapped, as its proposal holds it (the row's kind and currency its own). */
export interface RowFigure {
  cell: string;
  date: string;
  cadence: string;
  /** As the sheet shows it, scaled by its units; after a confirmation, as written. */
  value: string;
}

/** Figures as stored: `[cell, date, cadence, value]` each, half the bytes of objects for a row of 24 months. */
export function encodeFigures(figures: readonly RowFigure[]): string {
  return JSON.stringify(figures.map((f) => [f.cell, f.date, f.cadence, f.value]));
}

/**
 * An unmapped row's figures as stored, decoded when first asked for: a listing of a large workbook
 * decodes the rows of its page, not the thousands of the document.
 */
export class StoredFigures {
  #text: string;
  #list: RowFigure[] | undefined;

  constructor(text: string) {
    this.#text = text;
  }

  get list(): RowFigure[] {
    this.#list ??= (JSON.parse(this.#text) as [string, string, string, string][]).map(
      ([cell, date, cadence, value]) => ({ cell, date, cadence, value }),
    );
    return this.#list;
  }
}

/**
 * A stored proposal, with its category's name when it has one: one figure (`date`, `cadence`, `value`),
 * or a row that could not be mapped with its `figures`.
 */
export interface ProposalRow {
  id: string;
  sheet: string;
  /** The sheet's place in the workbook, from 0; null for proposals stored before it was kept. */
  sheet_index: number | null;
  /** The line of the sheet its label is on (a column, where the periods run down). */
  sheet_row: number;
  cell: string;
  row_label: string;
  category_id: string | null;
  category_name: string | null;
  is_standard: boolean | null;
  date: string | null;
  cadence: string | null;
  value: string | null;
  currency: string | null;
  kind: 'actual' | 'budget';
  confidence: number;
  status: 'proposed' | 'confirmed' | 'rejected';
  /** An unmapped row's figures; null for a proposal of one figure. */
  figures: StoredFigures | null;
}

/** The document a review is about, as the caller may see it. */
export interface ReviewedDocument {
  id: string;
  firm_id: string;
  company_id: string;
  name: string;
  parse_state: string;
  source: string;
}

/** What a confirmation settles: the category and value it wrote (for a corrected proposal, the corrected ones). */
export interface SettledProposal {
  id: string;
  category_id: string | null;
  value: string | null;
  /** An unmapped row's figures as written. */
  figures?: readonly RowFigure[] | null;
}

/** Proposals of a document, in the order of its sheets, rows and cells. */
function proposalsQuery(db: Knex, documentId: string) {
  return db('extraction_proposals as p')
    .leftJoin('metric_categories as c', 'c.id', 'p.category_id')
    .where('p.document_id', documentId)
    .select(
      'p.id',
      'p.sheet',
      'p.sheet_index',
      'p.sheet_row',
      'p.cell',
      'p.row_label',
      'p.category_id',
      'c.name as category_name',
      'c.is_standard',
      'p.date',
      'p.cadence',
      'p.value',
      'p.currency',
      'p.kind',
      'p.confidence',
      'p.status',
      'p.figures',
    );
}

type StoredProposal = Omit<ProposalRow, 'sheet_index' | 'sheet_row' | 'figures'> & {
  sheet_index: number | string | null;
  sheet_row: number | string | null;
  figures: string | null;
};

function toProposal(row: StoredProposal): ProposalRow {
  return {
    ...row,
    // Proposals stored before lines were kept: the row of the cell, right for every sheet read across.
    sheet_index: row.sheet_index === null ? null : Number(row.sheet_index),
    sheet_row: row.sheet_row === null ? position(row.cell)[0] : Number(row.sheet_row),
    confidence: Number(row.confidence),
    is_standard: row.is_standard === null ? null : Boolean(row.is_standard),
    figures: row.figures === null ? null : new StoredFigures(row.figures),
  };
}

/** Row number and column of a cell reference such as `AB12`. */
function position(cell: string): [number, number] {
  const m = /^([A-Z]+)(\d+)$/.exec(cell);
  if (!m) return [0, 0];
  const column = [...m[1]!].reduce((n, ch) => n * 26 + ch.charCodeAt(0) - 64, 0);
  return [Number(m[2]), column];
}

/** Sheets stored before their place was kept come after the others, by name. */
const UNPLACED = Number.MAX_SAFE_INTEGER;

/**
 * By sheet in the workbook's order, then row, then column: the order a person reads the workbook in.
 * Each cell's place is read once, not in every comparison (a large workbook's proposals are sorted in a
 * request).
 */
function inReadingOrder(proposals: ProposalRow[]): ProposalRow[] {
  const keyed = proposals.map((p) => ({ p, sheet: p.sheet_index ?? UNPLACED, at: position(p.cell) }));
  keyed.sort(
    ({ p: a, sheet: sa, at: [ra, ca] }, { p: b, sheet: sb, at: [rb, cb] }) =>
      sa - sb ||
      (a.sheet === b.sheet ? 0 : a.sheet < b.sheet ? -1 : 1) ||
      ra - rb ||
      ca - cb ||
      (a.id < b.id ? -1 : 1),
  );
  return keyed.map((k) => k.p);
}

export function extractionRepo(db: Knex) {
  return {
    /** A visible document, or undefined. */
    async document(scope: Scope, documentId: string): Promise<ReviewedDocument | undefined> {
      return (await scoped(db('documents'), scope, 'documents')
        .where('documents.id', documentId)
        .first('id', 'firm_id', 'company_id', 'name', 'parse_state', 'source')) as
        | ReviewedDocument
        | undefined;
    },

    /** Every proposal of a document (the caller has checked it may see it), sheet by sheet in reading order. */
    async proposals(documentId: string): Promise<ProposalRow[]> {
      const rows = (await proposalsQuery(db, documentId)) as StoredProposal[];
      return inReadingOrder(rows.map(toProposal));
    },

    /** Locks a document's proposals for a review (PostgreSQL; SQLite write transactions run alone). */
    async lock(documentId: string): Promise<void> {
      if (!isPostgres(db)) return;
      await db('documents').where('id', documentId).forUpdate().select('id');
    },

    /**
     * Marks open proposals confirmed with what was written, or rejected; the number changed. A few
     * statements however many proposals: rejections by id in batches, confirmations as one
     * UPDATE … FROM (VALUES …) per batch (SQLite 3.33+ and PostgreSQL).
     */
    async settle(
      documentId: string,
      status: 'confirmed' | 'rejected',
      settled: readonly SettledProposal[],
    ): Promise<number> {
      let n = 0;
      for (const batch of chunk(settled, SETTLE_BATCH)) {
        if (status === 'rejected') {
          n += await db('extraction_proposals')
            .where({ document_id: documentId, status: 'proposed' })
            .whereIn(
              'id',
              batch.map((s) => s.id),
            )
            .update({ status });
          continue;
        }
        // An unmapped row's figures are kept as they were unless the confirmation wrote them.
        const result: unknown = await db.raw(
          `with v(id, category_id, value, figures) as (values ${batch.map(() => '(?, ?, ?, ?)').join(', ')}) ` +
            "update extraction_proposals set status = 'confirmed', category_id = v.category_id, " +
            'value = v.value, figures = coalesce(v.figures, extraction_proposals.figures) ' +
            "from v where extraction_proposals.id = v.id and extraction_proposals.document_id = ? and extraction_proposals.status = 'proposed'",
          [
            ...batch.flatMap((s) => [
              s.id,
              s.category_id,
              s.value,
              s.figures ? encodeFigures(s.figures) : null,
            ]),
            documentId,
          ],
        );
        n += changedRows(result);
      }
      return n;
    },

    /** How many of a document's proposals are still open. */
    async openCount(documentId: string): Promise<number> {
      const row = (await db('extraction_proposals')
        .where({ document_id: documentId, status: 'proposed' })
        .count({ n: '*' })
        .first()) as { n: number | string } | undefined;
      return Number(row?.n ?? 0);
    },

    /** Remembers labels (normalised) a company's confirmations mapped, the latest mapping winning. */
    async remember(companyId: string, labels: ReadonlyMap<string, string>, at: string): Promise<void> {
      const rows = [...labels].map(([label, categoryId]) => ({
        company_id: companyId,
        label,
        category_id: categoryId,
        created_at: at,
      }));
      for (const batch of chunk(rows, SETTLE_BATCH)) {
        await db('extraction_labels')
          .insert(batch)
          .onConflict(['company_id', 'label'])
          .merge(['category_id', 'created_at']);
      }
    },

    /** Whether a firm confirms high-confidence proposals of the collection loop's uploads without review. */
    async settings(firmId: string): Promise<{ auto_confirm: boolean; updated_at: string | null }> {
      const row = (await db('firm_extraction_settings')
        .where({ firm_id: firmId })
        .first('auto_confirm', 'updated_at')) as
        | { auto_confirm: boolean | number; updated_at: string }
        | undefined;
      return { auto_confirm: Boolean(row?.auto_confirm), updated_at: row?.updated_at ?? null };
    },

    async setAutoConfirm(firmId: string, autoConfirm: boolean, at: string): Promise<void> {
      await db('firm_extraction_settings')
        .insert({ firm_id: firmId, auto_confirm: autoConfirm, updated_at: at })
        .onConflict('firm_id')
        .merge({ auto_confirm: autoConfirm, updated_at: at });
    },
  };
}
export type ExtractionRepo = ReturnType<typeof extractionRepo>;
