// A founder's answers to one report, saved in one call and one transaction: the values typed, any
// files given (stored as documents of the company, within the quota, parsed like any upload), the
// items' statuses and the report's. A draft keeps the values on the report; a submission writes them
// through the metrics service as well, dated at the period's end, and commits with them or not at all.
//
// Submitting is allowed until the request is closed (or the link expires): a later submission writes
// the values again over the data the report wrote (the same values change nothing), and a draft can no
// longer be saved over a submitted report. `submitted_at` keeps the first submission.

import { createHash } from 'node:crypto';
import { isMonetary } from '../core/categories.ts';
import { Conflict, type FieldError, InvalidInput } from '../core/errors.ts';
import { cleanFileName } from '../core/file-name.ts';
import { DOCUMENT_FORMATS, DOCUMENT_MAX_BYTES, extensionList, formatByName } from '../core/file-types.ts';
import type { ItemStatus, ReportStatus } from '../core/information.ts';
import { isCurrencyCode } from '../core/money.ts';
import type { ReportDocumentRow, ReportMetricRow } from '../db/repos/information.ts';
import type { ReportWithRequest } from '../db/repos/information-writes.ts';
import type { CategoryRow } from '../db/repos/metrics.ts';
import { writable } from '../db/repos/writable.ts';
import { type Recorder, record, type ServiceContext, withRecorder } from './changes.ts';
import { type DocumentFile, storeDocument } from './documents.ts';
import { type FounderSession, recheckLink } from './founder-links.ts';
import { queueConfirmation } from './information-confirmation.ts';
import { createMetrics, valueProblem } from './metrics.ts';
import type { QuotaContext } from './storage-quota.ts';

export interface MetricAnswer {
  item_id: string;
  /** The value typed; null or empty clears the item. */
  value: string | null;
  /** For money: the currency (default the company's reporting currency). */
  currency?: string | null;
}

export interface DocumentAnswer {
  item_id: string;
  file: DocumentFile;
}

export interface ReportAnswers {
  metrics?: MetricAnswer[];
  documents?: DocumentAnswer[];
}

/** A founder's writes: the contact's context, the storage quota and where documents are read. */
export type SaveContext = ServiceContext & QuotaContext & { publicUrl: string };

export interface SavedReport {
  report_id: string;
  status: ReportStatus;
  submitted_at: string | null;
  /** False when the save matched what was stored: nothing was written. */
  changed: boolean;
  metrics: {
    item_id: string;
    status: string;
    value: string | null;
    currency: string | null;
    datum_id: string | null;
  }[];
  documents: { item_id: string; status: string; document_id: string | null }[];
}

interface CheckedMetric {
  value: string | null;
  currency: string | null;
}

interface CheckedFile extends DocumentFile {
  sha256: string;
}

function checkMetric(
  a: MetricAnswer,
  item: ReportMetricRow,
  category: CategoryRow | undefined,
  companyCurrency: string,
  errors: FieldError[],
): CheckedMetric {
  const at = `metrics[${a.item_id}]`;
  const value = a.value === null || a.value.trim() === '' ? null : a.value.trim();
  if (!category) {
    errors.push({ field: `${at}.value`, message: `${item.name} is not a metric of the firm any more` });
    return { value: null, currency: null };
  }
  const money = isMonetary(category.category_type);
  if (value !== null) {
    const problem =
      value.length > 255 ? 'must be at most 255 characters' : valueProblem(value, category, item.name);
    if (problem) errors.push({ field: `${at}.value`, message: problem });
  }
  if (!money && a.currency) {
    errors.push({
      field: `${at}.currency`,
      message: `is only for amounts of money; ${item.name} is not one`,
    });
    return { value, currency: null };
  }
  const currency = money ? (a.currency ?? item.currency ?? companyCurrency) : null;
  if (currency !== null && !isCurrencyCode(currency))
    errors.push({ field: `${at}.currency`, message: 'must be an ISO 4217 code such as USD or EUR' });
  return { value, currency: value === null ? null : currency };
}

function checkFile(a: DocumentAnswer, errors: FieldError[]): CheckedFile | undefined {
  const field = `documents[${a.item_id}].file`;
  const filename = cleanFileName(a.file.filename ?? '');
  const format = filename ? formatByName(DOCUMENT_FORMATS, filename) : undefined;
  const problem = !filename
    ? 'has no file name'
    : a.file.bytes.length > DOCUMENT_MAX_BYTES
      ? 'is larger than 32 MB'
      : !format
        ? `must be one of ${extensionList(DOCUMENT_FORMATS)}`
        : !format.contentMatches(a.file.bytes)
          ? `is not a ${format.extensions[0]} file: its content is of another kind`
          : undefined;
  if (problem || !format) {
    errors.push({ field, message: problem ?? 'is not accepted' });
    return undefined;
  }
  const sha256 = createHash('sha256').update(a.file.bytes).digest('hex');
  return { filename, content_type: format.contentType, bytes: a.file.bytes, sha256 };
}

/** Every answer checked against the report's items; one error naming every bad field, nothing written. */
export async function checkAnswers(ctx: SaveContext, session: FounderSession, answers: ReportAnswers) {
  const reportId = session.link.report_id;
  const writes = writable(ctx.repos).informationWrites;
  const metrics = await writes.reportMetrics(reportId);
  const documents = await writes.reportDocuments(reportId);
  const categories = await ctx.repos.metrics.categories(session.firm.id);
  const byCategory = new Map(categories.map((c) => [c.id, c]));
  const errors: FieldError[] = [];
  const values = new Map<string, CheckedMetric>();
  for (const a of answers.metrics ?? []) {
    const item = metrics.find((m) => m.id === a.item_id);
    if (!item || values.has(a.item_id)) {
      const message = item ? 'is given twice' : 'is not a metric item of this report';
      errors.push({ field: `metrics[${a.item_id}]`, message });
      continue;
    }
    const category = item.category_id ? byCategory.get(item.category_id) : undefined;
    values.set(a.item_id, checkMetric(a, item, category, session.company.reporting_currency, errors));
  }
  const files = new Map<string, CheckedFile>();
  for (const a of answers.documents ?? []) {
    const known = documents.some((d) => d.id === a.item_id);
    if (!known || files.has(a.item_id)) {
      const message = known ? 'is given twice' : 'is not a document item of this report';
      errors.push({ field: `documents[${a.item_id}]`, message });
      continue;
    }
    const file = checkFile(a, errors);
    if (file) files.set(a.item_id, file);
  }
  if (errors.length > 0)
    throw new InvalidInput(
      `the report was not saved: ${errors.map((e) => `${e.field}: ${e.message}`).join('; ')}`,
      errors,
    );
  return { values, files, categories: byCategory };
}

/** Writes the submitted values as metric data of the company, dated at the period's end. */
async function writeMetrics(
  ctx: SaveContext,
  report: ReportWithRequest,
  items: ReportMetricRow[],
  categories: Map<string, CategoryRow>,
): Promise<Map<string, string>> {
  const given = items.filter((m) => m.value !== null && m.value !== undefined && m.category_id);
  if (given.length === 0) return new Map();
  const source = `information report ${report.id}: ${report.request_name}`.slice(0, 255);
  const created = await createMetrics(ctx, {
    points: given.map((m) => ({
      company_id: report.company_id,
      category: categories.get(m.category_id!)!.name,
      metric_cadence: m.time_period,
      date: report.period_end_date,
      value: m.value,
      currency: m.currency ?? null,
    })),
    schemaErrors: [],
    onConflict: 'overwrite',
    detailedSource: source,
  }).catch((err: unknown) => {
    // The metrics service names items[i]; the founder's page names the report's items.
    if (err instanceof InvalidInput) throw renamed(err, given);
    throw err;
  });
  return new Map(given.map((m, i) => [m.id, created.written[i]!.id]));
}

function renamed(err: InvalidInput, items: ReportMetricRow[]): InvalidInput {
  const errors = err.errors.map((e) => ({
    ...e,
    field: e.field.replace(/^items\[(\d+)\]/, (_, i: string) => `metrics[${items[Number(i)]!.id}]`),
  }));
  return new InvalidInput(
    `the report was not saved: ${errors.map((e) => `${e.field}: ${e.message}`).join('; ')}`,
    errors,
  );
}

const itemStatus = (given: boolean, submit: boolean): ItemStatus =>
  !given ? 'missing' : submit ? 'completed' : 'in-progress';

function reportStatus(
  metrics: ReportMetricRow[],
  documents: ReportDocumentRow[],
  submit: boolean,
): ReportStatus {
  if (!submit) return 'in-progress';
  const required = [...metrics, ...documents].filter((i) => !i.optional);
  return required.every((i) => i.status === 'completed') ? 'completed' : 'partially-complete';
}

/** Whether an item differs from what is stored, in any field a save sets. */
function differs(before: object, after: Record<string, unknown>): boolean {
  const stored = before as Record<string, unknown>;
  return Object.keys(after).some((k) => (stored[k] ?? null) !== (after[k] ?? null));
}

/** Applies checked answers in the save's transaction; the rows as they now are. */
async function apply(
  ctx: SaveContext,
  recorder: Recorder,
  session: FounderSession,
  report: ReportWithRequest,
  checked: Awaited<ReturnType<typeof checkAnswers>>,
  submit: boolean,
) {
  const { repos } = recorder;
  const metricsBefore = await repos.informationWrites.reportMetrics(report.id);
  const documentsBefore = await repos.informationWrites.reportDocuments(report.id);
  const metrics = metricsBefore.map((m) => ({ ...m, ...(checked.values.get(m.id) ?? {}) }));
  const documents = [...documentsBefore];
  for (const [itemId, file] of checked.files) {
    const i = documents.findIndex((d) => d.id === itemId);
    if (documents[i]!.file_sha256 === file.sha256) continue;
    const documentId = await storeDocument(ctx, recorder, session.company, file, {
      source: 'information-request',
      informationRequestId: report.information_request_id,
      field: `documents[${itemId}].file`,
    });
    documents[i] = { ...documents[i]!, document_id: documentId, file_sha256: file.sha256 };
  }
  const datums = submit
    ? await writeMetrics({ ...ctx, repos }, report, metrics, checked.categories)
    : new Map();
  for (const m of metrics) {
    m.status = itemStatus(m.value !== null && m.value !== undefined, submit);
    m.datum_id = datums.get(m.id) ?? m.datum_id ?? null;
  }
  for (const d of documents) d.status = itemStatus(Boolean(d.document_id), submit);
  return { metrics, documents, metricsBefore, documentsBefore };
}

/** Stores the rows that changed; whether anything did. */
async function store(recorder: Recorder, rows: Awaited<ReturnType<typeof apply>>) {
  const { repos, at } = recorder;
  let changed = false;
  for (const [i, m] of rows.metrics.entries()) {
    const fields = {
      value: m.value ?? null,
      currency: m.currency ?? null,
      status: m.status,
      datum_id: m.datum_id ?? null,
    };
    if (!differs(rows.metricsBefore[i]!, fields)) continue;
    await repos.informationWrites.updateReportMetric(m.id, { ...fields, updated_at: at });
    changed = true;
  }
  for (const [i, d] of rows.documents.entries()) {
    const fields = {
      document_id: d.document_id ?? null,
      file_sha256: d.file_sha256 ?? null,
      status: d.status,
    };
    if (!differs(rows.documentsBefore[i]!, fields)) continue;
    await repos.informationWrites.updateReportDocument(d.id, { ...fields, updated_at: at });
    changed = true;
  }
  return changed;
}

/**
 * Saves a founder's answers to the report of a checked link: a draft (`submit` false; the report is
 * in-progress) or a submission (completed, or partially-complete while a required item is missing).
 * A bad value refuses the whole save with errors naming `metrics[<item_id>].value`; nothing is written.
 */
export async function saveReport(
  ctx: SaveContext,
  session: FounderSession,
  answers: ReportAnswers,
  options: { submit: boolean },
): Promise<SavedReport> {
  const checked = await checkAnswers(ctx, session, answers);
  return withRecorder(ctx, async (repos, recorder) => {
    await recheckLink(repos, session, ctx.clock.now());
    const report = (await repos.informationWrites.lockReport(session.firm.id, session.link.report_id))!;
    if (report.submitted_at && !options.submit)
      throw new Conflict('this report was submitted already: submit it again to change it');
    const rows = await apply({ ...ctx, repos }, recorder, session, report, checked, options.submit);
    const status = reportStatus(rows.metrics, rows.documents, options.submit);
    const submittedAt = options.submit ? (report.submitted_at ?? recorder.at) : null;
    const itemsChanged = await store(recorder, rows);
    const changed = itemsChanged || status !== report.status || submittedAt !== report.submitted_at;
    if (changed) {
      await repos.informationWrites.updateReport(report.id, {
        status,
        submitted_at: submittedAt,
        updated_at: recorder.at,
      });
      await recordSave(recorder, report, status, submittedAt, rows, options.submit);
      if (options.submit) await queueConfirmation({ ...ctx, repos }, session, report, submittedAt!);
    }
    return {
      report_id: report.id,
      status,
      submitted_at: submittedAt,
      changed,
      metrics: rows.metrics.map((m) => ({
        item_id: m.id,
        status: m.status,
        value: m.value ?? null,
        currency: m.currency ?? null,
        datum_id: m.datum_id ?? null,
      })),
      documents: rows.documents.map((d) => ({
        item_id: d.id,
        status: d.status,
        document_id: d.document_id ?? null,
      })),
    };
  });
}

async function recordSave(
  recorder: Recorder,
  report: ReportWithRequest,
  status: ReportStatus,
  submittedAt: string | null,
  rows: Awaited<ReturnType<typeof apply>>,
  submit: boolean,
): Promise<void> {
  const done = (items: { status: string }[]) => items.filter((i) => i.status === 'completed').length;
  const data = {
    id: report.id,
    company_id: report.company_id,
    information_request_id: report.information_request_id,
    status,
    submitted_at: submittedAt,
    metrics_completed: done(rows.metrics),
    metrics_missing: rows.metrics.length - done(rows.metrics),
    documents_completed: done(rows.documents),
    documents_missing: rows.documents.length - done(rows.documents),
  };
  await record(recorder, {
    change: {
      entity: 'information_reports',
      entityId: report.id,
      action: 'update',
      changes: { status, submitted_at: submittedAt },
    },
    event: {
      type: submit ? 'information_report.submitted' : 'information_report.updated',
      companyId: report.company_id,
      resourceType: 'information_report',
      resourceId: report.id,
      data,
    },
  });
}
