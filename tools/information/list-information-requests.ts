import { z } from 'zod';
import { defineTool, readOnly } from '../define.ts';
import { utcDate } from '../schemas/dates.ts';
import { InformationRequest, reportCounts, toInformationRequest } from '../schemas/information.ts';
import { listOf, pageFields, pageResult, toPage } from '../schemas/page.ts';

export const listInformationRequests = defineTool({
  name: 'list_information_requests',
  title: 'List information requests',
  description:
    "Information requests sent to companies (documents and metrics asked for, period, due date), latest due first, with counts of company reports by status. Each company's answer: list_information_reports.",
  input: z.object({
    ...pageFields,
    name: z.string().optional().describe('Case-insensitive substring of the request name.'),
  }),
  output: listOf(InformationRequest),
  annotations: readOnly,
  async handler(ctx, input) {
    const { repos, principal } = ctx;
    const counted = await repos.information.listRequests(
      principal.firm.id,
      { name: input.name },
      toPage(input),
    );
    const ids = counted.rows.map((r) => r.id);
    const [items, statuses] = await Promise.all([
      repos.information.requestedItems(ids),
      // Counted over the reports of companies the caller may see only.
      repos.information.reportStatusCounts(principal.scope, ids),
    ]);
    const today = utcDate(ctx.clock.now());
    return pageResult(input, counted, (row) =>
      toInformationRequest(
        row,
        reportCounts(
          row.due_date,
          today,
          statuses.filter((s) => s.information_request_id === row.id),
        ),
        items.documents.get(row.id) ?? [],
        items.metrics.get(row.id) ?? [],
      ),
    );
  },
});
