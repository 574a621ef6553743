import { z } from 'zod';
import { replayWebhookDelivery as replay } from '../../services/webhooks.ts';
import { defineTool } from '../define.ts';
import { Delivery, toDelivery, webhookContext, webhookId, webhookWrite } from './common.ts';

export const replayWebhookDelivery = defineTool({
  name: 'replay_webhook_delivery',
  title: 'Replay a webhook delivery',
  description:
    'Sends a delivery again, as a new delivery with the same body and webhook-id (so a receiver that ' +
    'already has it can tell); the original keeps its history. Admin role.',
  input: z.object({
    webhook_id: webhookId,
    delivery_id: z
      .string()
      .min(1)
      .max(64)
      .describe('Delivery id (GET /v1/webhooks/{id}/deliveries/ lists them).'),
  }),
  output: Delivery,
  annotations: webhookWrite,
  write: true,
  permission: 'manage_webhooks',
  mcp: false,
  routes: [
    {
      method: 'POST',
      path: '/v1/webhooks/:webhook_id/deliveries/:delivery_id/replay/',
      summary: 'Send a delivery again',
      status: 202,
    },
  ],
  async handler(ctx, input) {
    const delivery = await replay(webhookContext(ctx), input.webhook_id, input.delivery_id);
    return toDelivery(delivery, ctx.clock.now());
  },
});
