import { z } from 'zod';
import { utcDate } from '../../core/clock.ts';
import { Table, toTable } from '../concise.ts';
import { defineTool, readOnly, restPaging } from '../define.ts';
import { NotFound } from '../errors.ts';
import { resolveCompany } from '../schemas/company-ref.ts';
import {
  InformationReport,
  REPORT_STATUSES,
  type ReportStatus,
  reportStatusFilter,
  toInformationReport,
} from '../schemas/information.ts';
import { listOf, pageFields, pageResult, toPage } from '../schemas/page.ts';

const known = new Set<string>(REPORT_STATUSES);
/** The statuses of a `status` filter: one, or several comma-separated (as a result gives one). */
const statusList = (value: string) => value.split(',').map((s) => s.trim());

/** REST's status: repeatable (`status=a&status=b`, `status[]=a`) or comma-separated, one list to the tool. */
const restStatus = z
  .array(z.enum(REPORT_STATUSES))
  .optional()
  .transform((list) => list?.join(','))
  .describe('Only reports in these statuses: repeated, or comma-separated (in-progress,not-started).');

const ReportList = listOf(InformationReport).extend({
  companies_without_report: z
    .array(
      z.object({
        company_id: z.string(),
        company_name: z.string(),
        reason: z
          .literal('not_asked')
          .describe('not_asked: no report was created, so the request was not sent.'),
      }),
    )
    .optional()
    .describe('With information_request_id: visible companies that have no report for it.'),
});

export const listInformationReports = defineTool({
  name: 'list_information_reports',
  title: 'List information reports',
  description:
    "Companies' answers to information requests: status, submission, lateness, items completed of those requested; the request due last first, then by company name. With information_request_id it also names the companies not asked. Concise: one table row per report with item counts; each item's status: response_format detailed.",
  input: z.object({
    ...pageFields,
    company_id: z.string().min(1).optional().describe('Only reports of this company id.'),
    information_request_id: z
      .string()
      .min(1)
      .optional()
      .describe('Only reports answering this information request (from list_information_requests).'),
    status: z
      .string()
      .refine((v) => statusList(v).every((s) => known.has(s)), {
        message: `one status or several comma-separated, of ${REPORT_STATUSES.join(', ')}`,
      })
      .optional()
      .describe(
        'Only reports in this status, or in one of several comma-separated: in-progress,not-started.',
      ),
    late: z.boolean().optional().describe('true: only late (is_late); false: only on time.'),
    submitted: z
      .boolean()
      .optional()
      .describe('false: only unsubmitted reports (who has not answered); true: only submitted.'),
  }),
  output: ReportList,
  annotations: readOnly,
  routes: [
    {
      method: 'GET',
      path: '/v1/information-reports/',
      summary: 'List information reports',
      rename: restPaging,
      envelope: 'page',
      narrower: { status: restStatus },
    },
  ],
  concise: conciseReports,
  conciseOutput: z.object({
    same_in_every_result: z
      .object({
        information_request_id: z.string(),
        due_date: z.string(),
        status: z.string(),
        is_late: z.boolean(),
      })
      .partial(),
    reports: Table,
  }),
  async handler(ctx, input) {
    const { repos, principal } = ctx;
    await resolveCompany(ctx, { company_id: input.company_id });
    if (
      input.information_request_id &&
      !(await repos.information.getRequest(principal.firm.id, input.information_request_id))
    ) {
      throw new NotFound(
        `no information request with id ${input.information_request_id}; call list_information_requests for valid ids`,
      );
    }
    const today = utcDate(ctx.clock.now());
    const counted = await repos.information.listReports(
      principal.scope,
      {
        companyId: input.company_id,
        requestId: input.information_request_id,
        ...reportStatusFilter(
          input.status === undefined ? undefined : (statusList(input.status) as ReportStatus[]),
        ),
        late: input.late === undefined ? undefined : { late: input.late, today },
        submitted: input.submitted,
      },
      toPage(input),
    );
    const items = await repos.information.reportItems(counted.rows.map((r) => r.id));
    const result = pageResult(input, counted, (row) =>
      toInformationReport(row, items.documents.get(row.id) ?? [], items.metrics.get(row.id) ?? [], today),
    );
    if (!input.information_request_id || input.company_id) return result;
    const without = await repos.information.companiesWithoutReport(
      principal.scope,
      input.information_request_id,
    );
    return {
      ...result,
      companies_without_report: without.map((c) => ({
        company_id: c.id,
        company_name: c.name,
        reason: 'not_asked' as const,
      })),
    };
  },
});

// No report id: the report's own route is REST's; over MCP a report is its company and request.
const REPORT_COLUMNS = [
  'company_id',
  'company_name',
  'information_request_id',
  'due_date',
  'status',
  'submitted_at',
  'is_late',
  'documents_completed',
  'documents_requested',
  'metrics_completed',
  'metrics_requested',
] as const;
const SHARED = ['information_request_id', 'due_date', 'status', 'is_late'] as const;

/** One table row per report, its items counted, not listed; a request, due date, status or lateness they share stated once. */
function conciseReports({ results, ...rest }: z.output<typeof ReportList>) {
  const rows = results.map(({ documents, metrics, documents_missing, metrics_missing, ...report }) => ({
    ...report,
    documents_requested: documents.length,
    metrics_requested: metrics.length,
  }));
  const same = SHARED.filter((key) => rows.length > 1 && rows.every((r) => r[key] === rows[0]![key]));
  return {
    ...rest,
    ...(same.length > 0 && { same_in_every_result: Object.fromEntries(same.map((k) => [k, rows[0]![k]])) }),
    reports: toTable(
      rows,
      REPORT_COLUMNS.filter((c) => !(same as readonly string[]).includes(c)),
    ),
  };
}
