import { z } from 'zod';
import { defineTool } from '../define.ts';
import { NotFound } from '../errors.ts';
import { webhookId, webhookWrite } from './common.ts';

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
  async handler(ctx, input) {
    const deleted = await ctx.repos.webhooks.deleteEndpoint(ctx.principal.firm.id, input.webhook_id);
    if (!deleted)
      throw new NotFound(`no webhook endpoint with id ${input.webhook_id}; GET /v1/webhooks/ lists them`);
    return { success: true, message: `webhook endpoint ${input.webhook_id} deleted` };
  },
});
