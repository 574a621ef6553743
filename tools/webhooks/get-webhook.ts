import { z } from 'zod';
import { defineTool, readOnly } from '../define.ts';
import { endpointOf, toWebhook, Webhook, webhookId } from './common.ts';

export const getWebhook = defineTool({
  name: 'get_webhook',
  title: 'Get a webhook endpoint',
  description: 'One webhook endpoint: its URL, event types, company filter and state. Admin role.',
  input: z.object({ webhook_id: webhookId }),
  output: Webhook,
  annotations: readOnly,
  permission: 'manage_webhooks',
  mcp: false,
  routes: [{ method: 'GET', path: '/v1/webhooks/:webhook_id/', summary: 'Get a webhook endpoint' }],
  async handler(ctx, input) {
    return toWebhook(await endpointOf(ctx, input.webhook_id), ctx.clock.now());
  },
});
