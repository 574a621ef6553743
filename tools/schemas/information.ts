import { z } from 'zod';
import type {
  InformationRequestRow,
  ListedReportRow,
  ReportDocumentRow,
  ReportMetricRow,
  ReportStatusCount,
  RequestedItemRow,
} from '../../db/repos/information.ts';

const RequestedItem = z.object({
  id: z.string(),
  name: z.string(),
  description: z.string().describe('What is asked for (the item name).'),
  optional: z.boolean().describe('True when the company may skip it.'),
});

export const InformationRequest = z.object({
  id: z.string().describe('Information request identifier.'),
  name: z.string(),
  due_date: z.string().describe('YYYY-MM-DD.'),
  period_start_date: z.string().describe('Start of the reporting period, YYYY-MM-DD.'),
  period_end_date: z.string().describe('End of the reporting period, YYYY-MM-DD.'),
  period: z.string().describe('Reporting period label.'),
  status: z.string(),
  completed_count: z.number().int().describe('Reports completed.'),
  in_progress_count: z.number().int().describe('Reports in progress.'),
  not_started_count: z.number().int().describe('Reports not started (or in another unfinished status).'),
  partially_complete_count: z.number().int().describe('Reports partially complete.'),
  past_due_count: z
    .number()
    .int()
    .describe('Reports not completed once the due date has passed; each also counts under its own status.'),
  unanswered_count: z.number().int().describe('Reports not submitted yet, whatever their status.'),
  requested_documents: z.array(RequestedItem),
  requested_metrics: z.array(RequestedItem),
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

/** The report statuses the counts know; any other unfinished status counts as not-started. */
export const REPORT_STATUSES = ['completed', 'partially-complete', 'in-progress', 'not-started'] as const;
export type ReportStatus = (typeof REPORT_STATUSES)[number];

/** A status filter as the repository takes it: not-started is every status the others are not. */
export function reportStatusFilter(status: ReportStatus | undefined) {
  if (status === undefined) return {};
  if (status !== 'not-started') return { statuses: [status] };
  return { excludeStatuses: REPORT_STATUSES.filter((s) => s !== 'not-started') };
}

/** Statuses are compared without regard to case or to `-` versus `_`. */
function normalize(status: string): string {
  return status.trim().toLowerCase().replace(/_/g, '-');
}

function isCompleted(status: string): boolean {
  return normalize(status) === 'completed';
}

type Counts = Pick<
  InformationRequest,
  | 'completed_count'
  | 'in_progress_count'
  | 'not_started_count'
  | 'partially_complete_count'
  | 'past_due_count'
  | 'unanswered_count'
>;

/**
 * Tallies a request's reports by their own status, so the counters always agree with the reports;
 * past_due_count overlaps them: the reports not completed once the due date has passed.
 */
export function reportCounts(dueDate: string, today: string, statuses: ReportStatusCount[]): Counts {
  const counts: Counts = {
    completed_count: 0,
    in_progress_count: 0,
    not_started_count: 0,
    partially_complete_count: 0,
    past_due_count: 0,
    unanswered_count: 0,
  };
  const pastDue = dueDate < today;
  for (const { status, count, unsubmitted } of statuses) {
    counts.unanswered_count += unsubmitted;
    if (!isCompleted(status) && pastDue) counts.past_due_count += count;
    if (isCompleted(status)) counts.completed_count += count;
    else if (normalize(status) === 'in-progress') counts.in_progress_count += count;
    else if (normalize(status) === 'partially-complete') counts.partially_complete_count += count;
    else counts.not_started_count += count;
  }
  return counts;
}

function toRequested(row: RequestedItemRow) {
  return { id: row.id, name: row.name, description: row.name, optional: row.optional };
}

export function toInformationRequest(
  row: InformationRequestRow,
  counts: Counts,
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
    ...counts,
    requested_documents: documents.map(toRequested),
    requested_metrics: metrics.map(toRequested),
  };
}

/** Submitted after the due date (compared by UTC date), or not submitted and the due date has passed. */
export function isLate(submittedAt: string | null, dueDate: string, today: string): boolean {
  return submittedAt === null ? today > dueDate : submittedAt.slice(0, 10) > dueDate;
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
