import { z } from 'zod';
import { createRequest } from '../../services/information-requests.ts';
import { defineTool } from '../define.ts';
import { requestFields } from '../schemas/information-input.ts';
import { InformationRequestDetail, requestDetail } from './request-detail.ts';

export const createInformationRequest = defineTool({
  name: 'create_information_request',
  title: 'Create an information request',
  description:
    'Drafts a request for figures and documents from portfolio companies (not sent: send_information_request ' +
    'sends it). copy_from repeats an earlier request: its metrics, documents, companies and reminders, with ' +
    'the name, period and dates you give. Editor or admin role.',
  input: z.object({
    ...requestFields,
    message: requestFields.message.optional(),
    reminder_days: requestFields.reminder_days.optional(),
    company_ids: requestFields.company_ids.optional(),
    metrics: requestFields.metrics.optional(),
    documents: requestFields.documents.optional(),
    copy_from: z
      .string()
      .min(1)
      .optional()
      .describe('Id of an earlier request to copy what is not given from (list_information_requests).'),
  }),
  output: InformationRequestDetail,
  annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: false, openWorldHint: false },
  write: true,
  permission: 'edit_information_requests',
  routes: [
    {
      method: 'POST',
      path: '/v1/information-requests/',
      summary: 'Draft an information request',
      body: 'merge',
      status: 201,
    },
  ],
  async handler(ctx, input) {
    const id = await createRequest(ctx, input);
    return requestDetail(ctx, id);
  },
});
