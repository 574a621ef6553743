import { z } from 'zod';
import { deleteWebhook as remove } from '../../services/webhooks.ts';
import { defineTool } from '../define.ts';
import { webhookContext, webhookId, webhookWrite } from './common.ts';

export const deleteWebhook = defineTool({
  name: 'delete_webhook',
  title: 'Delete a webhook endpoint',
  description: 'Deletes an endpoint and its delivery history; nothing more is sent to it. Admin role.',
  input: z.object({ webhook_id: webhookId }),
  output: z.object({ success: z.boolean(), message: z.string() }),
  annotations: { ...webhookWrite, destructiveHint: true, idempotentHint: true },
  write: true,
  permission: 'manage_webhooks',
  mcp: false,
  routes: [{ method: 'DELETE', path: '/v1/webhooks/:webhook_id/', summary: 'Delete a webhook endpoint' }],
  async handler(ctx, input) {
    await remove(webhookContext(ctx), input.webhook_id);
    return { success: true, message: `webhook endpoint ${input.webhook_id} deleted` };
  },
});
