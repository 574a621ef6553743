import { z } from 'zod';
import { defineTool, readOnly } from '../define.ts';
import { NotFound } from '../errors.ts';
import { InformationReport, toInformationReport } from '../schemas/information.ts';
import { listOf, pageFields, pageResult, toPage } from '../schemas/page.ts';

export const listInformationReports = defineTool({
  name: 'list_information_reports',
  title: 'List information reports',
  description:
    "Lists companies' answers to information requests: each report's status, submission time and which " +
    'requested documents and metrics are completed or missing. Newest submission first; unsubmitted ' +
    'reports last. Filter by company_id and/or information_request_id (from list_information_requests).',
  input: z.object({
    ...pageFields,
    company_id: z
      .string()
      .min(1)
      .optional()
      .describe('Only reports of this company id (from list_companies or search_companies).'),
    information_request_id: z
      .string()
      .min(1)
      .optional()
      .describe('Only reports answering this information request (from list_information_requests).'),
  }),
  output: listOf(InformationReport),
  annotations: readOnly,
  async handler(ctx, input) {
    const { repos, principal } = ctx;
    if (input.company_id && !(await repos.companies.get(principal.scope, input.company_id))) {
      throw new NotFound(
        `no company with id ${input.company_id}; call list_companies or search_companies for valid ids`,
      );
    }
    if (
      input.information_request_id &&
      !(await repos.information.getRequest(principal.firm.id, input.information_request_id))
    ) {
      throw new NotFound(
        `no information request with id ${input.information_request_id}; call list_information_requests for valid ids`,
      );
    }
    const counted = await repos.information.listReports(
      principal.scope,
      { companyId: input.company_id, requestId: input.information_request_id },
      toPage(input),
    );
    const items = await repos.information.reportItems(counted.rows.map((r) => r.id));
    return pageResult(input, counted, (row) =>
      toInformationReport(row, items.documents.get(row.id) ?? [], items.metrics.get(row.id) ?? []),
    );
  },
});
