import { z } from 'zod';
import { remindRequest } from '../../services/information-sending.ts';
import { defineTool } from '../define.ts';
import { requestId } from '../schemas/information-input.ts';
import { ReachedCompany, WithoutContacts } from './send-information-request.ts';

export const remindInformationRequest = defineTool({
  name: 'remind_information_request',
  title: 'Remind companies of an information request',
  description:
    'E-mails a reminder with a fresh link to every company of a sent request that has not submitted, or ' +
    'to company_ids only (list_information_reports with submitted false finds them). Editor or admin role.',
  input: z.object({
    information_request_id: requestId,
    company_ids: z
      .array(z.string().min(1))
      .min(1)
      .max(1000)
      .optional()
      .describe('Only these companies of the request; default every one not submitted.'),
  }),
  output: z.object({
    information_request_id: z.string(),
    reminded: z.array(ReachedCompany).describe('Companies reminded and who got the e-mail.'),
    companies_without_contacts: WithoutContacts,
    already_submitted: z
      .array(z.object({ company_id: z.string(), report_id: z.string() }))
      .describe('Companies named that have submitted: not reminded.'),
  }),
  annotations: { readOnlyHint: false, destructiveHint: true, idempotentHint: false, openWorldHint: true },
  write: true,
  permission: 'edit_information_requests',
  routes: [
    {
      method: 'POST',
      path: '/v1/information-requests/:information_request_id/remind/',
      summary: 'Remind the companies that have not submitted',
      body: 'merge',
    },
  ],
  async handler(ctx, input) {
    const result = await remindRequest(ctx, input.information_request_id, input.company_ids);
    return { information_request_id: input.information_request_id, ...result };
  },
});
