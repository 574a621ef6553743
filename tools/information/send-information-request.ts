import { z } from 'zod';
import { sendRequest } from '../../services/information-sending.ts';
import { defineTool } from '../define.ts';
import { requestId } from '../schemas/information-input.ts';
import { InformationRequestDetail, requestDetail } from './request-detail.ts';

export const ReachedCompany = z.object({
  company_id: z.string(),
  company_name: z.string(),
  report_id: z.string(),
  contacts: z
    .array(z.object({ id: z.string(), name: z.string(), email: z.string() }))
    .describe('Who was sent a private link.'),
});

export const WithoutContacts = z
  .array(z.object({ company_id: z.string(), company_name: z.string(), report_id: z.string() }))
  .describe('Companies with no contact: add one (create_company_contact), then remind.');

export const sendInformationRequest = defineTool({
  name: 'send_information_request',
  title: 'Send an information request',
  description:
    'Sends a draft: each company gets a report (not-started) and each of its contacts an e-mail with a ' +
    'private link to answer. Editor or admin role.',
  input: z.object({ information_request_id: requestId }),
  output: InformationRequestDetail.extend({
    reports: z.array(ReachedCompany).describe('Each company reached, with its report.'),
    companies_without_contacts: WithoutContacts,
  }),
  annotations: { readOnlyHint: false, destructiveHint: true, idempotentHint: true, openWorldHint: true },
  write: true,
  permission: 'edit_information_requests',
  routes: [
    {
      method: 'POST',
      path: '/v1/information-requests/:information_request_id/send/',
      summary: 'Send an information request to its companies',
    },
  ],
  async handler(ctx, input) {
    const sent = await sendRequest(ctx, input.information_request_id);
    return { ...(await requestDetail(ctx, input.information_request_id)), ...sent };
  },
});
