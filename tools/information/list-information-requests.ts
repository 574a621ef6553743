import { z } from 'zod';
import { utcDate } from '../../core/clock.ts';
import { defineTool, readOnly, restPaging } from '../define.ts';
import {
  conciseRequest,
  conciseRequests,
  InformationRequest,
  REQUEST_STATUSES,
  toInformationRequest,
} from '../schemas/information.ts';
import { listOf, pageFields, pageResult, toPage } from '../schemas/page.ts';

export const listInformationRequests = defineTool({
  name: 'list_information_requests',
  title: 'List information requests',
  description:
    "Information requests sent to companies (documents and metrics asked for, period, due date), latest due first, with counts of company reports by status. Each company's answer: list_information_reports. Concise: each set of requested items once in item_sets, by name (optional ones marked), a request naming its item_set; no message, reminders, sent_at, closed_at or audit fields (response_format detailed has them).",
  input: z.object({
    ...pageFields,
    name: z.string().optional().describe('Case-insensitive substring of the request name.'),
    status: z.enum(REQUEST_STATUSES).optional().describe('Only requests in this state.'),
  }),
  output: listOf(InformationRequest),
  annotations: readOnly,
  routes: [
    {
      method: 'GET',
      path: '/v1/information-requests/',
      summary: 'List information requests',
      rename: restPaging,
      envelope: 'page',
    },
  ],
  conciseOutput: z.object({
    same_in_every_result: z.object({}),
    item_sets: z.array(z.object({ documents: z.array(z.string()), metrics: z.array(z.string()) })),
  }),
  concise: ({ results, ...rest }) => conciseRequests({ ...rest, results: results.map(conciseRequest) }),
  async handler(ctx, input) {
    const { repos, principal } = ctx;
    // Counters are counted over the reports of companies the caller may see, in the page's statement.
    const counted = await repos.information.listRequests(
      principal.scope,
      { name: input.name, status: input.status },
      toPage(input),
      utcDate(ctx.clock.now()),
    );
    const items = await repos.information.requestedItems(counted.rows.map((r) => r.id));
    return pageResult(input, counted, (row) =>
      toInformationRequest(row, items.documents.get(row.id) ?? [], items.metrics.get(row.id) ?? []),
    );
  },
});
