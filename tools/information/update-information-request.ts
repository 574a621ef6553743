import { z } from 'zod';
import { updateRequest } from '../../services/information-requests.ts';
import { defineTool } from '../define.ts';
import { requestFields, requestId } from '../schemas/information-input.ts';
import { InformationRequestDetail, requestDetail } from './request-detail.ts';

export const updateInformationRequest = defineTool({
  name: 'update_information_request',
  title: 'Change an information request',
  description:
    'Changes the given fields of a request. A draft: any field (a list given replaces the list). A sent ' +
    'request: name, message, due_date, reminder_days, and company_ids to add companies (each is sent at ' +
    'once); its period, dates and items stay. A closed request cannot change. Editor or admin role.',
  input: z.object({
    information_request_id: requestId,
    name: requestFields.name.optional(),
    period: requestFields.period.optional(),
    period_start_date: requestFields.period_start_date.optional(),
    period_end_date: requestFields.period_end_date.optional(),
    due_date: requestFields.due_date.optional(),
    message: requestFields.message.optional(),
    reminder_days: requestFields.reminder_days.optional(),
    company_ids: requestFields.company_ids.optional(),
    metrics: requestFields.metrics.optional(),
    documents: requestFields.documents.optional(),
  }),
  output: InformationRequestDetail,
  annotations: { readOnlyHint: false, destructiveHint: true, idempotentHint: true, openWorldHint: false },
  write: true,
  permission: 'edit_information_requests',
  mcp: false,
  routes: [
    {
      method: 'PATCH',
      path: '/v1/information-requests/:information_request_id/',
      summary: 'Change an information request',
      body: 'merge',
    },
  ],
  async handler(ctx, input) {
    const { information_request_id: id, ...changes } = input;
    await updateRequest(ctx, id, changes);
    return requestDetail(ctx, id);
  },
});
