import { z } from 'zod';
import { newId } from '../../db/ids.ts';
import { payloadOf } from '../../db/repos/webhooks.ts';
import { defineTool } from '../define.ts';
import { Delivery, endpointOf, toDelivery, webhookId, webhookWrite } from './common.ts';

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
  async handler(ctx, input) {
    const endpoint = await endpointOf(ctx, input.webhook_id);
    const now = ctx.clock.now();
    const event = {
      id: newId(),
      type: 'webhook.test',
      occurred_at: now.toISOString(),
      actor_type: ctx.principal.kind === 'user' ? 'user' : 'application',
      actor_id: ctx.principal.user.id,
      company_id: null,
      data: { webhook_id: endpoint.id, message: 'a test event sent on request' },
    };
    const delivery = await ctx.repos.webhooks.enqueue({
      endpointId: endpoint.id,
      firmId: endpoint.firm_id,
      eventId: event.id,
      eventType: event.type,
      eventSeq: null,
      payload: payloadOf(event),
      replayOf: null,
      now: event.occurred_at,
    });
    return toDelivery(delivery, now);
  },
});
