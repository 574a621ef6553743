import { z } from 'zod';
import { defineTool, readOnly } from '../define.ts';
import { requestId } from '../schemas/information-input.ts';
import { InformationRequestDetail, requestDetail } from './request-detail.ts';

export const getInformationRequest = defineTool({
  name: 'get_information_request',
  title: 'Get an information request',
  description: 'One information request with its counters, items and companies.',
  input: z.object({ information_request_id: requestId }),
  output: InformationRequestDetail,
  annotations: readOnly,
  mcp: false,
  routes: [
    {
      method: 'GET',
      path: '/v1/information-requests/:information_request_id/',
      summary: 'Get an information request',
    },
  ],
  async handler(ctx, input) {
    return requestDetail(ctx, input.information_request_id);
  },
});
