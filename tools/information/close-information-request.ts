import { z } from 'zod';
import { closeRequest } from '../../services/information-requests.ts';
import { defineTool } from '../define.ts';
import { requestId } from '../schemas/information-input.ts';
import { InformationRequestDetail, requestDetail } from './request-detail.ts';

export const closeInformationRequest = defineTool({
  name: 'close_information_request',
  title: 'Close an information request',
  description:
    'Closes a sent request: its founder links stop working and its reports take no more answers. Editor or admin role.',
  input: z.object({ information_request_id: requestId }),
  output: InformationRequestDetail,
  annotations: { readOnlyHint: false, destructiveHint: true, idempotentHint: true, openWorldHint: false },
  write: true,
  permission: 'edit_information_requests',
  mcp: false,
  routes: [
    {
      method: 'POST',
      path: '/v1/information-requests/:information_request_id/close/',
      summary: 'Close an information request',
    },
  ],
  async handler(ctx, input) {
    await closeRequest(ctx, input.information_request_id);
    return requestDetail(ctx, input.information_request_id);
  },
});
