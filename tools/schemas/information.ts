import { z } from 'zod';
import type {
  InformationReportRow,
  InformationRequestRow,
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
  in_progress_count: z.number().int().describe('Reports in progress and not yet past due.'),
  not_started_count: z.number().int().describe('Reports not started and not yet past due.'),
  partially_complete_count: z.number().int().describe('Reports partially complete and not yet past due.'),
  past_due_count: z.number().int().describe('Reports not completed whose due date has passed.'),
  requested_documents: z.array(RequestedItem),
  requested_metrics: z.array(RequestedItem),
});
export type InformationRequest = z.infer<typeof InformationRequest>;

export const InformationReport = z.object({
  id: z.string().describe('Information report identifier.'),
  company_id: z.string(),
  information_request_id: z.string(),
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
>;

/**
 * Buckets a request's reports by status. The buckets do not overlap: once the due date has passed,
 * every report not completed counts as past due instead of its own status.
 */
export function reportCounts(dueDate: string, today: string, statuses: ReportStatusCount[]): Counts {
  const counts: Counts = {
    completed_count: 0,
    in_progress_count: 0,
    not_started_count: 0,
    partially_complete_count: 0,
    past_due_count: 0,
  };
  const pastDue = dueDate < today;
  for (const { status, count } of statuses) {
    if (isCompleted(status)) counts.completed_count += count;
    else if (pastDue) counts.past_due_count += count;
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

export function toInformationReport(
  row: InformationReportRow,
  documents: ReportDocumentRow[],
  metrics: ReportMetricRow[],
): InformationReport {
  const documentsCompleted = documents.filter((d) => isCompleted(d.status)).length;
  const metricsCompleted = metrics.filter((m) => isCompleted(m.status)).length;
  return {
    id: row.id,
    company_id: row.company_id,
    information_request_id: row.information_request_id,
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
