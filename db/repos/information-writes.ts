import type { Knex } from 'knex';
import { isPostgres } from '../knex.ts';
import type {
  InformationReportRow,
  InformationRequestRow,
  ReportDocumentRow,
  ReportMetricRow,
  RequestedItemRow,
} from './information.ts';
import { bool, chunk, insertBatched } from './util.ts';

/** An item a request asks for, as stored (the request id is added on insert). */
export type NewRequestedItem = Omit<RequestedItemRow, 'request_id'>;

/** A report to create with its items. */
export interface NewReport {
  report: InformationReportRow;
  documents: ReportDocumentRow[];
  metrics: ReportMetricRow[];
}

/** The fields of a request a change may set. */
export type RequestUpdate = Partial<
  Pick<
    InformationRequestRow,
    | 'name'
    | 'due_date'
    | 'period_start_date'
    | 'period_end_date'
    | 'period'
    | 'status'
    | 'message'
    | 'reminder_days'
    | 'updated_at'
    | 'sent_at'
    | 'closed_at'
  >
>;

/** A report with its request's fields that the report's writes need. */
export interface ReportWithRequest extends InformationReportRow {
  request_status: string;
  request_name: string;
  due_date: string;
  period: string;
  period_start_date: string;
  period_end_date: string;
}

const withBool = <T extends { optional?: unknown }>(rows: T[]) =>
  rows.map((r) => ({
    ...r,
    optional: bool(r.optional),
    position: Number((r as { position?: unknown }).position),
  }));

/** The writes of requests and reports; the information services call them inside their transactions. */
export function informationWritesRepo(db: Knex) {
  async function insertItems(requestId: string, documents: NewRequestedItem[], metrics: NewRequestedItem[]) {
    const rows = (items: NewRequestedItem[]) => items.map((d) => ({ ...d, request_id: requestId }));
    await insertBatched(db, 'information_request_documents', rows(documents));
    await insertBatched(db, 'information_request_metrics', rows(metrics));
  }

  return {
    async insertRequest(
      row: InformationRequestRow,
      companyIds: readonly string[],
      documents: NewRequestedItem[],
      metrics: NewRequestedItem[],
    ): Promise<void> {
      await db('information_requests').insert(row);
      await insertBatched(
        db,
        'information_request_companies',
        companyIds.map((company_id) => ({ request_id: row.id, company_id })),
      );
      await insertItems(row.id, documents, metrics);
    },
    /** The request, locked until the transaction ends (PostgreSQL; SQLite has one writer). */
    async lockRequest(firmId: string, id: string): Promise<InformationRequestRow | undefined> {
      const q = db<InformationRequestRow>('information_requests').where({ firm_id: firmId, id });
      if (isPostgres(db)) q.forUpdate();
      return q.first();
    },
    /** A firm's sent requests (taking answers), by due date: what a reminder pass looks at. */
    async sentRequests(firmId: string): Promise<InformationRequestRow[]> {
      return (await db('information_requests')
        .where({ firm_id: firmId, status: 'sent' })
        .orderBy([{ column: 'due_date' }, { column: 'id' }])) as InformationRequestRow[];
    },
    async updateRequest(id: string, changes: RequestUpdate): Promise<void> {
      await db('information_requests').where({ id }).update(changes);
    },
    /** Replaces what a draft asks for. */
    async replaceItems(requestId: string, documents?: NewRequestedItem[], metrics?: NewRequestedItem[]) {
      if (documents) await db('information_request_documents').where('request_id', requestId).delete();
      if (metrics) await db('information_request_metrics').where('request_id', requestId).delete();
      await insertItems(requestId, documents ?? [], metrics ?? []);
    },
    async removeCompanies(requestId: string, companyIds: readonly string[]): Promise<void> {
      for (const ids of chunk(companyIds, 500))
        await db('information_request_companies')
          .where('request_id', requestId)
          .whereIn('company_id', ids)
          .delete();
    },
    async addCompanies(requestId: string, companyIds: readonly string[]): Promise<void> {
      await insertBatched(
        db,
        'information_request_companies',
        companyIds.map((company_id) => ({ request_id: requestId, company_id })),
      );
    },
    async deleteRequest(id: string): Promise<void> {
      await db('information_requests').where({ id }).delete();
    },
    /** Creates reports with their items, many at a time. */
    async insertReports(reports: readonly NewReport[]): Promise<void> {
      await insertBatched(
        db,
        'information_reports',
        reports.map((r) => ({ ...r.report })),
      );
      await insertBatched(
        db,
        'information_report_documents',
        reports.flatMap((r) => r.documents.map((d) => ({ ...d }))),
      );
      await insertBatched(
        db,
        'information_report_metrics',
        reports.flatMap((r) => r.metrics.map((m) => ({ ...m }))),
      );
    },
    /** A request's reports, by company. */
    async reportsOf(requestId: string): Promise<InformationReportRow[]> {
      return (await db('information_reports')
        .where('information_request_id', requestId)
        .orderBy([{ column: 'company_id' }, { column: 'id' }])) as InformationReportRow[];
    },
    /** One report of the firm with its request, locked until the transaction ends (PostgreSQL) unless `lock` is false. */
    async lockReport(firmId: string, id: string, lock = true): Promise<ReportWithRequest | undefined> {
      const q = db('information_reports')
        .join('information_requests', 'information_requests.id', 'information_reports.information_request_id')
        .where({ 'information_reports.firm_id': firmId, 'information_reports.id': id })
        .select(
          'information_reports.*',
          'information_requests.status as request_status',
          'information_requests.name as request_name',
          'information_requests.due_date',
          'information_requests.period',
          'information_requests.period_start_date',
          'information_requests.period_end_date',
        );
      if (lock && isPostgres(db)) q.forUpdate('information_reports');
      return (await q.first()) as ReportWithRequest | undefined;
    },
    async reportDocuments(reportId: string): Promise<ReportDocumentRow[]> {
      return withBool(
        (await db('information_report_documents')
          .where('report_id', reportId)
          .orderBy(['position', 'id'])) as ReportDocumentRow[],
      );
    },
    async reportMetrics(reportId: string): Promise<ReportMetricRow[]> {
      return withBool(
        (await db('information_report_metrics')
          .where('report_id', reportId)
          .orderBy(['position', 'id'])) as ReportMetricRow[],
      );
    },
    async updateReport(
      id: string,
      fields: Partial<
        Pick<InformationReportRow, 'status' | 'submitted_at' | 'updated_at' | 'reminded_at' | 'late_at'>
      >,
    ): Promise<void> {
      await db('information_reports').where({ id }).update(fields);
    },
    async updateReportMetric(
      id: string,
      fields: Partial<Pick<ReportMetricRow, 'value' | 'currency' | 'status' | 'datum_id' | 'updated_at'>>,
    ): Promise<void> {
      await db('information_report_metrics').where({ id }).update(fields);
    },
    async updateReportDocument(
      id: string,
      fields: Partial<Pick<ReportDocumentRow, 'document_id' | 'file_sha256' | 'status' | 'updated_at'>>,
    ): Promise<void> {
      await db('information_report_documents').where({ id }).update(fields);
    },
    /**
     * Unsubmitted reports of the firm's sent requests whose due date is before `today` and that were
     * not announced late yet, with their request's due date and name.
     */
    async lateToAnnounce(firmId: string, today: string) {
      return (await db('information_reports')
        .join('information_requests', 'information_requests.id', 'information_reports.information_request_id')
        .where('information_reports.firm_id', firmId)
        .where('information_requests.status', 'sent')
        .where('information_requests.due_date', '<', today)
        .whereNull('information_reports.submitted_at')
        .whereNull('information_reports.late_at')
        .orderBy(['information_reports.company_id', 'information_reports.id'])
        .select(
          'information_reports.id',
          'information_reports.company_id',
          'information_reports.information_request_id',
          'information_reports.status',
          'information_requests.name as request_name',
          'information_requests.due_date',
        )) as {
        id: string;
        company_id: string;
        information_request_id: string;
        status: string;
        request_name: string;
        due_date: string;
      }[];
    },
    /**
     * A company's latest live actual value of each category in each cadence dated before `before`: the
     * previous period a founder's page shows beside each field. Keyed by `category_id|cadence`.
     */
    async previousValues(
      companyId: string,
      wanted: readonly { category_id: string; cadence: string }[],
      before: string,
    ): Promise<Map<string, { value: string; currency: string | null; date: string }>> {
      const out = new Map<string, { value: string; currency: string | null; date: string }>();
      for (const w of wanted) {
        const row = (await db('metric_data')
          .where({ company_id: companyId, category_id: w.category_id, cadence: w.cadence })
          .whereNull('budget_id')
          .whereNull('deleted_at')
          .where('date', '<', before)
          .orderBy([
            { column: 'date', order: 'desc' },
            { column: 'created_at', order: 'desc' },
          ])
          .first('value', 'currency', 'date')) as
          | { value: string; currency: string | null; date: string }
          | undefined;
        if (row) out.set(`${w.category_id}|${w.cadence}`, row);
      }
      return out;
    },
    async markLate(ids: readonly string[], at: string): Promise<void> {
      for (const batch of chunk(ids, 500))
        await db('information_reports').whereIn('id', batch).update({ late_at: at });
    },
  };
}
export type InformationWritesRepo = ReturnType<typeof informationWritesRepo>;
