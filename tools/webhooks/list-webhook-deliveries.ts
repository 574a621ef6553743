import { z } from 'zod';
import { defineTool, readOnly } from '../define.ts';
import { Delivery, endpointOf, toDelivery, webhookId } from './common.ts';

export const listWebhookDeliveries = defineTool({
  name: 'list_webhook_deliveries',
  title: 'List webhook deliveries',
  description:
    "An endpoint's recent deliveries, newest first: status, attempts, the last answer's status code, " +
    'error and duration. Admin role.',
  input: z.object({
    webhook_id: webhookId,
    limit: z.number().int().min(1).max(100).default(50).describe('How many deliveries, newest first.'),
  }),
  output: z.object({ results: z.array(Delivery) }),
  annotations: readOnly,
  permission: 'manage_webhooks',
  mcp: false,
  routes: [
    {
      method: 'GET',
      path: '/v1/webhooks/:webhook_id/deliveries/',
      summary: 'Recent deliveries of an endpoint',
    },
  ],
  async handler(ctx, input) {
    await endpointOf(ctx, input.webhook_id);
    const now = ctx.clock.now();
    const rows = await ctx.repos.webhooks.listDeliveries(
      ctx.principal.firm.id,
      input.webhook_id,
      input.limit,
    );
    return { results: rows.map((d) => toDelivery(d, now)) };
  },
});
