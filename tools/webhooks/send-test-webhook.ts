import { z } from 'zod';
import { sendTestWebhook as sendTest } from '../../services/webhooks.ts';
import { defineTool } from '../define.ts';
import { Delivery, toDelivery, webhookContext, webhookId, webhookWrite } from './common.ts';

export const sendTestWebhook = defineTool({
  name: 'send_test_webhook',
  title: 'Send a test event',
  description:
    'Queues a webhook.test event to one endpoint, whatever its event types; the answer is the delivery, ' +
    'whose outcome GET /v1/webhooks/{id}/deliveries/ shows a moment later. Admin role.',
  input: z.object({ webhook_id: webhookId }),
  output: Delivery,
  annotations: webhookWrite,
  write: true,
  permission: 'manage_webhooks',
  mcp: false,
  routes: [
    {
      method: 'POST',
      path: '/v1/webhooks/:webhook_id/test/',
      summary: 'Send a webhook.test event',
      status: 202,
    },
  ],
  async handler(ctx, input) {
    return toDelivery(await sendTest(webhookContext(ctx), input.webhook_id), ctx.clock.now());
  },
});
