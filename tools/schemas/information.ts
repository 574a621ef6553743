import { z } from 'zod';
import { isLate, parseReminderDays, REPORT_STATUSES, type ReportStatus } from '../../core/information.ts';
import type {
  CountedRequestRow,
  ListedReportRow,
  ReportDocumentRow,
  ReportMetricRow,
  RequestedItemRow,
} from '../../db/repos/information.ts';
import { conciseDefault } from '../concise.ts';

const RequestedItem = z.object({
  id: z.string(),
  name: z.string(),
  description: z.string().describe('What is asked for: the description given, else the item name.'),
  optional: z.boolean().describe('True when the company may skip it.'),
});

const RequestedMetric = RequestedItem.extend({
  category_id: z
    .string()
    .nullable()
    .describe('The standard category or custom metric asked for (get_metrics_options lists them).'),
  time_period: z
    .string()
    .nullable()
    .describe('The period the value covers: month, quarter, year or point_in_time.'),
});

export const InformationRequest = z.object({
  id: z.string().describe('Information request identifier.'),
  name: z.string(),
  due_date: z.string().describe('YYYY-MM-DD.'),
  period_start_date: z.string().describe('Start of the reporting period, YYYY-MM-DD.'),
  period_end_date: z.string().describe('End of the reporting period, YYYY-MM-DD.'),
  period: z.string().describe('Reporting period label.'),
  status: z.string().describe('draft (not sent yet), sent (taking answers) or closed.'),
  completed_count: z.number().int().describe('Reports completed.'),
  in_progress_count: z.number().int().describe('Reports in progress.'),
  not_started_count: z.number().int().describe('Reports not started (or in another unfinished status).'),
  partially_complete_count: z.number().int().describe('Reports partially complete.'),
  past_due_count: z
    .number()
    .int()
    .describe('Reports not completed once the due date has passed; each also counts under its own status.'),
  unanswered_count: z.number().int().describe('Reports not submitted yet, whatever their status.'),
  company_count: z.number().int().describe('Companies the request asks (of those you can see).'),
  requested_documents: z.array(RequestedItem),
  requested_metrics: z.array(RequestedMetric),
  message: z.string().describe('The note to founders that the request e-mail carries.'),
  reminder_days: z
    .array(z.number().int())
    .describe('When reminders go out, in days from the due date (-3 before, 0 on it, 7 after).'),
  copied_from: z.string().nullable().describe('The request this one was copied from.'),
  created_by: z.string().nullable().describe('Id of the user who created it.'),
  created_at: z.string(),
  updated_at: z.string().nullable(),
  sent_at: z.string().nullable().describe('When it was sent to its companies.'),
  closed_at: z.string().nullable().describe('When it was closed (its links stop working).'),
});
export type InformationRequest = z.infer<typeof InformationRequest>;

export const InformationReport = z.object({
  id: z.string().describe('Information report identifier.'),
  company_id: z.string(),
  company_name: z.string(),
  information_request_id: z.string(),
  due_date: z.string().describe("The request's due date, YYYY-MM-DD."),
  is_late: z
    .boolean()
    .describe('Submitted after the due date, or not submitted and the due date has passed.'),
  submitted_at: z.string().nullable().describe('When the company submitted it (ISO 8601), or null.'),
  status: z.string(),
  documents: z.array(
    z.object({
      id: z.string(),
      requested_document: z.string().describe('Name of the requested document.'),
      status: z.string(),
    }),
  ),
  documents_completed: z.number().int(),
  documents_missing: z.number().int(),
  metrics: z.array(
    z.object({
      id: z.string(),
      date: z.string().describe('YYYY-MM-DD.'),
      name: z.string(),
      status: z.string(),
      time_period: z.string(),
    }),
  ),
  metrics_completed: z.number().int(),
  metrics_missing: z.number().int(),
});
export type InformationReport = z.infer<typeof InformationReport>;

export { REPORT_STATUSES, REQUEST_STATUSES, type ReportStatus } from '../../core/information.ts';

/** A status filter as the repository takes it: not-started is every status the others are not. */
export function reportStatusFilter(status: ReportStatus | readonly ReportStatus[] | undefined) {
  if (status === undefined) return {};
  const wanted = typeof status === 'string' ? [status] : status;
  if (!wanted.includes('not-started')) return { statuses: [...wanted] };
  return { excludeStatuses: REPORT_STATUSES.filter((s) => !wanted.includes(s)) };
}

/** Statuses are compared without regard to case or to `-` versus `_`. */
function normalize(status: string): string {
  return status.trim().toLowerCase().replace(/_/g, '-');
}

function isCompleted(status: string): boolean {
  return normalize(status) === 'completed';
}

function toRequested(row: RequestedItemRow) {
  return { id: row.id, name: row.name, description: row.description || row.name, optional: row.optional };
}

export function toInformationRequest(
  row: CountedRequestRow,
  documents: RequestedItemRow[],
  metrics: RequestedItemRow[],
): InformationRequest {
  return {
    id: row.id,
    name: row.name,
    due_date: row.due_date,
    period_start_date: row.period_start_date,
    period_end_date: row.period_end_date,
    period: row.period,
    status: row.status,
    completed_count: row.completed_count,
    in_progress_count: row.in_progress_count,
    not_started_count: row.not_started_count,
    partially_complete_count: row.partially_complete_count,
    past_due_count: row.past_due_count,
    unanswered_count: row.unanswered_count,
    company_count: row.company_count,
    requested_documents: documents.map(toRequested),
    requested_metrics: metrics.map((m) => ({
      ...toRequested(m),
      category_id: m.category_id ?? null,
      time_period: m.time_period ?? null,
    })),
    message: row.message ?? '',
    reminder_days: parseReminderDays(row.reminder_days),
    copied_from: row.copied_from ?? null,
    created_by: row.created_by ?? null,
    created_at: row.created_at,
    updated_at: row.updated_at ?? null,
    sent_at: row.sent_at ?? null,
    closed_at: row.closed_at ?? null,
  };
}

/** An item as the concise form names it: its name, then the period a metric covers and `optional`. */
function itemName(item: { name: string; optional: boolean; time_period?: string | null }): string {
  const notes = [item.time_period, item.optional && 'optional'].filter(Boolean);
  return notes.length > 0 ? `${item.name} (${notes.join(', ')})` : item.name;
}

/**
 * A request as the concise form gives it: each requested item by name once, in `documents` and
 * `metrics` (a metric with the period its value covers), without the note to founders, the reminder
 * schedule or the audit fields (sent_at and closed_at too: status says which).
 */
export function conciseRequest(request: InformationRequest) {
  const {
    requested_documents,
    requested_metrics,
    message: _m,
    reminder_days: _r,
    copied_from: _c,
    created_by: _b,
    created_at: _a,
    updated_at: _u,
    sent_at: _s,
    closed_at: _d,
    ...rest
  } = request;
  return {
    ...rest,
    documents: requested_documents.map(itemName),
    metrics: requested_metrics.map(itemName),
  };
}

/**
 * Concise requests as a list: each distinct set of requested documents and metrics stated once in
 * `item_sets`, a request naming its set by index (`item_set`); then what every request shares stated
 * once (conciseDefault).
 */
export function conciseRequests(
  list: { results: ReturnType<typeof conciseRequest>[] } & Record<string, unknown>,
) {
  const sets: { documents: string[]; metrics: string[] }[] = [];
  const index = new Map<string, number>();
  const results = list.results.map(({ documents, metrics, ...request }) => {
    const key = JSON.stringify([documents, metrics]);
    let at = index.get(key);
    if (at === undefined) {
      at = sets.push({ documents, metrics }) - 1;
      index.set(key, at);
    }
    return { ...request, item_set: at };
  });
  return { ...conciseDefault({ ...list, results }), item_sets: sets };
}

export function toInformationReport(
  row: ListedReportRow,
  documents: ReportDocumentRow[],
  metrics: ReportMetricRow[],
  today: string,
): InformationReport {
  const documentsCompleted = documents.filter((d) => isCompleted(d.status)).length;
  const metricsCompleted = metrics.filter((m) => isCompleted(m.status)).length;
  return {
    id: row.id,
    company_id: row.company_id,
    company_name: row.company_name,
    information_request_id: row.information_request_id,
    due_date: row.due_date,
    is_late: isLate(row.submitted_at, row.due_date, today),
    submitted_at: row.submitted_at,
    status: row.status,
    documents: documents.map((d) => ({
      id: d.id,
      requested_document: d.requested_document,
      status: d.status,
    })),
    documents_completed: documentsCompleted,
    documents_missing: documents.length - documentsCompleted,
    metrics: metrics.map((m) => ({
      id: m.id,
      date: m.date,
      name: m.name,
      status: m.status,
      time_period: m.time_period,
    })),
    metrics_completed: metricsCompleted,
    metrics_missing: metrics.length - metricsCompleted,
  };
}

/** One report as its own route answers it: each item with what was given for it. */
export const InformationReportDetail = InformationReport.extend({
  documents: z.array(
    z.object({
      id: z.string(),
      requested_document: z.string().describe('Name of the requested document.'),
      status: z.string().describe('missing, in-progress (in a draft) or completed (submitted).'),
      optional: z.boolean(),
      document_id: z.string().nullable().describe('The document the file became (list_documents).'),
    }),
  ),
  metrics: z.array(
    z.object({
      id: z.string(),
      date: z.string().describe('YYYY-MM-DD: the period end the value is dated at.'),
      name: z.string(),
      status: z.string().describe('missing, in-progress (in a draft) or completed (submitted).'),
      time_period: z.string(),
      optional: z.boolean(),
      category_id: z.string().nullable(),
      value: z.string().nullable().describe('The value given (a draft or submitted).'),
      currency: z.string().nullable(),
      datum_id: z.string().nullable().describe('The metric datum a submitted value was written to.'),
    }),
  ),
  updated_at: z.string().nullable(),
  reminded_at: z.string().nullable().describe('When its companies were last reminded.'),
});
export type InformationReportDetail = z.infer<typeof InformationReportDetail>;

export function toInformationReportDetail(
  row: ListedReportRow,
  documents: ReportDocumentRow[],
  metrics: ReportMetricRow[],
  today: string,
): InformationReportDetail {
  const base = toInformationReport(row, documents, metrics, today);
  return {
    ...base,
    documents: documents.map((d, i) => ({
      ...base.documents[i]!,
      optional: d.optional ?? false,
      document_id: d.document_id ?? null,
    })),
    metrics: metrics.map((m, i) => ({
      ...base.metrics[i]!,
      optional: m.optional ?? false,
      category_id: m.category_id ?? null,
      value: m.value ?? null,
      currency: m.currency ?? null,
      datum_id: m.datum_id ?? null,
    })),
    updated_at: row.updated_at ?? null,
    reminded_at: row.reminded_at ?? null,
  };
}
