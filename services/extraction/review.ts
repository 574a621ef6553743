import { isMonetary } from '../../core/categories.ts';
import { compare, type Decimal, mul, neg, parseDecimal, sign, toText } from '../../core/decimal.ts';
import { type FieldError, InvalidInput, NotFound, ToolError } from '../../core/errors.ts';
import type { ProposalRow, ReviewedDocument, RowFigure, SettledProposal } from '../../db/repos/extraction.ts';
import type { ConflictMode, PointOutcome } from '../../db/repos/metric-writes.ts';
import type { CategoryRow } from '../../db/repos/metrics.ts';
import { budgetNamed } from '../budgets.ts';
import { CategoryIndex } from '../categories.ts';
import { type Recorder, record, type ServiceContext, withRecorder } from '../changes.ts';
import { createMetrics } from '../metrics.ts';
import { normalizeLabel } from './synonyms.ts';

/** A person's correction of some proposals: another category or custom metric, units, sign. */
export interface Correction {
  ids: readonly string[];
  /** A standard category name or a custom metric's display name. */
  category?: string;
  /** A positive decimal the values are multiplied by (`1000` for figures in thousands the sheet did not say). */
  multiplier?: string;
  flip_sign?: boolean;
}

export interface ConfirmRequest {
  /** The proposals to confirm; every open one with a category when left out. */
  ids?: readonly string[];
  corrections?: readonly Correction[];
  onConflict: ConflictMode;
}

export interface ReviewResult {
  document_id: string;
  parse_state: string;
  confirmed: number;
  rejected: number;
  /** What the confirmed figures did to the company's data, by outcome. */
  written: Record<PointOutcome, number>;
  /** The budget the document's budget figures went to, when it has some. */
  budget_id: string | null;
  /** Proposals of the document still waiting for review. */
  open: number;
}

/** A proposal about to be confirmed, with what it will write: its value, or an unmapped row's figures. */
interface Planned {
  proposal: ProposalRow;
  category: CategoryRow;
  value: string | null;
  figures: RowFigure[] | null;
}

/** One figure a confirmation writes, with the proposal it is of. */
interface Figure {
  planned: Planned;
  cell: string;
  date: string;
  cadence: string;
  value: string;
}

const listPointer = 'list_document_proposals (GET /v1/documents/{id}/proposals/) lists them';

function documentNotFound(id: string): NotFound {
  return new NotFound(`no document with id ${id}; list_documents lists valid ids`);
}

function invalid(errors: FieldError[]): never {
  throw new InvalidInput(
    `nothing was written: ${errors.map((e) => `${e.field}: ${e.message}`).join('; ')}`,
    errors,
  );
}

/** Where a proposal's figure came from, as its datum's source names it: `Q3.xlsx, P&L!D14`. */
export function sourceOf(documentName: string, p: Pick<ProposalRow, 'sheet' | 'cell'>): string {
  return `${documentName}, ${p.sheet}!${p.cell}`.slice(0, 255);
}

/**
 * The open proposals `ids` name (every open one when left out); ids of proposals already in the
 * state asked for are passed over, so a review repeated does nothing.
 */
function selectOpen(
  all: readonly ProposalRow[],
  ids: readonly string[] | undefined,
  documentId: string,
  wanted: 'confirmed' | 'rejected',
): ProposalRow[] {
  if (ids === undefined) return all.filter((p) => p.status === 'proposed');
  const byId = new Map(all.map((p) => [p.id, p]));
  const errors: FieldError[] = [];
  const selected = new Map<string, ProposalRow>();
  ids.forEach((id, i) => {
    const p = byId.get(id);
    if (!p)
      errors.push({
        field: `ids[${i}]`,
        message: `no proposal ${id} of document ${documentId}; ${listPointer}`,
      });
    else if (p.status === 'proposed') selected.set(id, p);
    else if (p.status !== wanted)
      errors.push({
        field: `ids[${i}]`,
        message: `proposal ${id} was ${p.status} already; a settled proposal stays so`,
      });
  });
  if (errors.length > 0) invalid(errors);
  return [...selected.values()];
}

/** A correction as checked: its category found and its multiplier parsed. */
interface CheckedCorrection {
  c: Correction;
  category?: CategoryRow;
  multiplier?: Decimal;
}

/** The value after a correction's multiplier and sign. */
function corrected(value: string | null, k: CheckedCorrection | undefined): string | null {
  if (value === null || !k || (k.multiplier === undefined && !k.c.flip_sign)) return value;
  let v = parseDecimal(value)!;
  if (k.multiplier !== undefined) v = mul(v, k.multiplier);
  if (k.c.flip_sign) v = neg(v);
  return toText(v);
}

/** A multiplier as a person types it (white space around it ignored), if it is a positive decimal. */
function readMultiplier(text: string): Decimal | undefined {
  const m = parseDecimal(text.trim());
  return m && sign(m) > 0 ? m : undefined;
}

/** Each correction checked, by the id of each proposal it corrects. */
function correctionsById(
  corrections: readonly Correction[],
  index: CategoryIndex,
  known: ReadonlySet<string>,
): { byId: Map<string, CheckedCorrection>; errors: FieldError[] } {
  const byId = new Map<string, CheckedCorrection>();
  const errors: FieldError[] = [];
  corrections.forEach((c, i) => {
    const at = `corrections[${i}]`;
    let category: CategoryRow | undefined;
    if (c.category !== undefined) {
      const found = index.lookup(c.category, `${at}.category`);
      if ('id' in found) category = found;
      else errors.push(found);
    }
    let multiplier: Decimal | undefined;
    if (c.multiplier !== undefined) {
      const m = readMultiplier(c.multiplier);
      if (m) multiplier = m;
      else
        errors.push({
          field: `${at}.multiplier`,
          message: 'must be a positive decimal such as "1000" or "0.001"',
        });
    }
    if (c.category === undefined && c.multiplier === undefined && c.flip_sign === undefined)
      errors.push({ field: at, message: 'corrects nothing: give category, multiplier or flip_sign' });
    c.ids.forEach((id, j) => {
      if (!known.has(id))
        errors.push({
          field: `${at}.ids[${j}]`,
          message: `is not an open proposal being confirmed; ${listPointer}`,
        });
      else if (byId.has(id))
        errors.push({ field: `${at}.ids[${j}]`, message: `proposal ${id} is corrected twice` });
      else byId.set(id, { c, category, multiplier });
    });
  });
  return { byId, errors };
}

/** What each selected proposal writes; proposals without a category are left open unless named. */
async function plan(
  ctx: ServiceContext,
  selected: readonly ProposalRow[],
  request: ConfirmRequest,
): Promise<Planned[]> {
  const rows = await ctx.repos.metrics.categories(ctx.principal.firm.id);
  const index = new CategoryIndex(rows);
  const categoryById = new Map(rows.map((r) => [r.id, r]));
  const { byId, errors } = correctionsById(
    request.corrections ?? [],
    index,
    new Set(selected.map((p) => p.id)),
  );
  const planned: Planned[] = [];
  for (const p of selected) {
    const correction = byId.get(p.id);
    const category = correction?.category ?? (p.category_id ? categoryById.get(p.category_id) : undefined);
    if (!category) {
      const i = request.ids?.indexOf(p.id) ?? -1;
      if (i >= 0)
        errors.push({
          field: `ids[${i}]`,
          message: `row "${p.row_label}" (${p.sheet}!${p.cell}) was not mapped: name its category in corrections`,
        });
      continue;
    }
    const figures = p.figures
      ? p.figures.list.map((f) => ({ ...f, value: corrected(f.value, correction) ?? f.value }))
      : null;
    planned.push({ proposal: p, category, value: corrected(p.value, correction), figures });
  }
  if (errors.length > 0) invalid(errors);
  return planned;
}

/** The figures planned proposals write: each one's own, or an unmapped row's; none without a value. */
function figuresOf(planned: readonly Planned[]): Figure[] {
  return planned.flatMap((x) => {
    if (x.figures) return x.figures.map((f) => ({ planned: x, ...f }));
    const { cell, date, cadence } = x.proposal;
    return x.value !== null && date && cadence ? [{ planned: x, cell, date, cadence, value: x.value }] : [];
  });
}

/** The data point a figure writes, whatever its value: a second figure with the same key writes it again. */
function pointOf({ planned: { proposal, category }, date, cadence }: Figure): string {
  return JSON.stringify([
    category.id,
    category.is_point_in_time ? 'point_in_time' : cadence,
    date,
    proposal.kind,
  ]);
}

/**
 * One figure per data point where several say the same (revenue on the P&L and on the KPI tab): the
 * first in reading order is written and names the source. Figures of one point with different values
 * are all kept, for the metrics service to refuse naming both.
 */
function onePerPoint(figures: readonly Figure[]): Figure[] {
  const first = new Map<string, Figure>();
  return figures.filter((f) => {
    const key = pointOf(f);
    const earlier = first.get(key);
    if (!earlier) {
      first.set(key, f);
      return true;
    }
    const sameCurrency =
      !isMonetary(f.planned.category.category_type) ||
      earlier.planned.proposal.currency === f.planned.proposal.currency;
    const [a, b] = [parseDecimal(earlier.value), parseDecimal(f.value)];
    const sameValue = a && b ? compare(a, b) === 0 : earlier.value === f.value;
    return !(sameCurrency && sameValue);
  });
}

/** The metrics service's errors name items[i]; a review names the proposals and their cells. */
function renamed(err: unknown, figures: readonly Figure[]): unknown {
  if (!(err instanceof ToolError) || err.errors.length === 0) return err;
  // Every items[i] is named, in the field and in the message ("repeats items[3]"), with its cell.
  const named = (text: string) =>
    text.replace(/items\[(\d+)\]/g, (whole, i: string) => {
      const f = figures[Number(i)];
      return f ? `proposal ${f.planned.proposal.id} (${f.planned.proposal.sheet}!${f.cell})` : whole;
    });
  const errors = err.errors.map((e) => ({ ...e, field: named(e.field), message: named(e.message) }));
  const message = `nothing was written: ${errors.map((e) => `${e.field}: ${e.message}`).join('; ')}`;
  return new ToolError(err.status, err.code, message, errors);
}

/** Writes planned figures of one kind through the metrics service, into `budgetId` or as actuals. */
async function writeFigures(
  ctx: ServiceContext,
  doc: ReviewedDocument,
  figures: readonly Figure[],
  budgetId: string | null,
  onConflict: ConflictMode,
  tally: Record<PointOutcome, number>,
): Promise<void> {
  if (figures.length === 0) return;
  const points = figures.map(({ planned: { proposal: p, category }, date, cadence, value }) => ({
    company_id: doc.company_id,
    category: category.name,
    metric_cadence: category.is_point_in_time ? 'point_in_time' : cadence,
    date,
    value,
    currency: isMonetary(category.category_type) ? p.currency : null,
    is_budget_metric: budgetId !== null,
    budget_id: budgetId,
  }));
  const created = await createMetrics(ctx, {
    points,
    schemaErrors: [],
    onConflict,
    sources: figures.map((f) => sourceOf(doc.name, { sheet: f.planned.proposal.sheet, cell: f.cell })),
  }).catch((err: unknown) => {
    throw renamed(err, figures);
  });
  for (const w of created.written) tally[w.outcome]++;
}

/** Ends the document's wait for input when nothing of it is left to review, with its change-log row. */
async function settleDocument(
  recorder: Recorder,
  doc: ReviewedDocument,
): Promise<{ state: string; open: number }> {
  const open = await recorder.repos.extraction.openCount(doc.id);
  if (open > 0 || !(await recorder.repos.documents.completeReview(doc.id)))
    return { state: doc.parse_state, open };
  await record(recorder, {
    change: {
      entity: 'documents',
      entityId: doc.id,
      action: 'update',
      changes: { parse_state: 'completed' },
    },
  });
  return { state: 'completed', open };
}

async function visibleDocument(ctx: ServiceContext, documentId: string): Promise<ReviewedDocument> {
  const doc = await ctx.repos.extraction.document(ctx.principal.scope, documentId);
  if (!doc) throw documentNotFound(documentId);
  return doc;
}

/**
 * Confirms a document's proposals (some, or every open one with a category), with corrections:
 * actuals and the budget named after the document written through the metrics service, the proposals
 * settled, their labels remembered for the company and the document completed when nothing is left,
 * all in one transaction. Proposals confirmed before are passed over: confirming twice writes nothing.
 */
export async function confirmProposals(
  ctx: ServiceContext,
  documentId: string,
  request: ConfirmRequest,
): Promise<ReviewResult> {
  const doc = await visibleDocument(ctx, documentId);
  return withRecorder(ctx, async (repos, recorder) => {
    const inTrx = { ...ctx, repos };
    await repos.extraction.lock(doc.id);
    const selected = selectOpen(await repos.extraction.proposals(doc.id), request.ids, doc.id, 'confirmed');
    const planned = await plan(inTrx, selected, request);
    const tally: Record<PointOutcome, number> = { created: 0, overwritten: 0, unchanged: 0, skipped: 0 };
    const figures = onePerPoint(figuresOf(planned));
    const actuals = figures.filter((f) => f.planned.proposal.kind === 'actual');
    const budgeted = figures.filter((f) => f.planned.proposal.kind === 'budget');
    await writeFigures(inTrx, doc, actuals, null, request.onConflict, tally);
    let budgetId: string | null = null;
    if (budgeted.length > 0) {
      const first = budgeted.map((f) => f.date).sort()[0]!;
      budgetId = (await budgetNamed(recorder, doc.company_id, doc.name.slice(0, 255), first)).id;
      await writeFigures(inTrx, doc, budgeted, budgetId, request.onConflict, tally);
    }
    const settled: SettledProposal[] = planned.map((x) => ({
      id: x.proposal.id,
      category_id: x.category.id,
      value: x.value,
      figures: x.figures,
    }));
    const confirmed = await repos.extraction.settle(doc.id, 'confirmed', settled);
    const labels = new Map(planned.map((x) => [normalizeLabel(x.proposal.row_label), x.category.id]));
    await repos.extraction.remember(doc.company_id, labels, recorder.at);
    const { state, open } = await settleDocument(recorder, doc);
    return {
      document_id: doc.id,
      parse_state: state,
      confirmed,
      rejected: 0,
      written: tally,
      budget_id: budgetId,
      open,
    };
  });
}

/** Rejects a document's proposals (some, or every open one): nothing is written for them. */
export async function rejectProposals(
  ctx: ServiceContext,
  documentId: string,
  ids: readonly string[] | undefined,
): Promise<ReviewResult> {
  const doc = await visibleDocument(ctx, documentId);
  return withRecorder(ctx, async (repos, recorder) => {
    await repos.extraction.lock(doc.id);
    const selected = selectOpen(await repos.extraction.proposals(doc.id), ids, doc.id, 'rejected');
    const rejected = await repos.extraction.settle(
      doc.id,
      'rejected',
      selected.map((p) => ({ id: p.id, category_id: p.category_id, value: p.value })),
    );
    const { state, open } = await settleDocument(recorder, doc);
    const written = { created: 0, overwritten: 0, unchanged: 0, skipped: 0 };
    return {
      document_id: doc.id,
      parse_state: state,
      confirmed: 0,
      rejected,
      written,
      budget_id: null,
      open,
    };
  });
}
