import { z } from 'zod';
import { deleteRequest } from '../../services/information-requests.ts';
import { defineTool } from '../define.ts';
import { requestId } from '../schemas/information-input.ts';

export const deleteInformationRequest = defineTool({
  name: 'delete_information_request',
  title: 'Delete an information request',
  description:
    'Deletes a request with its reports and founder links. Figures and documents already submitted stay. Editor or admin role.',
  input: z.object({ information_request_id: requestId }),
  output: z.object({ success: z.boolean(), message: z.string() }),
  annotations: { readOnlyHint: false, destructiveHint: true, idempotentHint: true, openWorldHint: false },
  write: true,
  permission: 'edit_information_requests',
  mcp: false,
  routes: [
    {
      method: 'DELETE',
      path: '/v1/information-requests/:information_request_id/',
      summary: 'Delete an information request',
    },
  ],
  async handler(ctx, input) {
    await deleteRequest(ctx, input.information_request_id);
    return { success: true, message: `information request ${input.information_request_id} deleted` };
  },
});
