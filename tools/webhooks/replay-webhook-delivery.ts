import { z } from 'zod';
import { defineTool } from '../define.ts';
import { NotFound } from '../errors.ts';
import { Delivery, toDelivery, webhookId, webhookWrite } from './common.ts';

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
  async handler(ctx, input) {
    const original = await ctx.repos.webhooks.getDelivery(ctx.principal.firm.id, input.delivery_id);
    if (!original || original.endpoint_id !== input.webhook_id)
      throw new NotFound(
        `no delivery ${input.delivery_id} of webhook endpoint ${input.webhook_id}; GET /v1/webhooks/${input.webhook_id}/deliveries/ lists them`,
      );
    const now = ctx.clock.now();
    const replay = await ctx.repos.webhooks.enqueue({
      endpointId: original.endpoint_id,
      firmId: original.firm_id,
      eventId: original.event_id,
      eventType: original.event_type,
      eventSeq: original.event_seq,
      payload: original.payload,
      replayOf: original.id,
      now: now.toISOString(),
    });
    return toDelivery(replay, now);
  },
});
