import { z } from 'zod';
import { rotateWebhookSecret as rotate } from '../../services/webhooks.ts';
import { defineTool } from '../define.ts';
import { toWebhook, Webhook, webhookContext, webhookId, webhookWrite } from './common.ts';

export const rotateWebhookSecret = defineTool({
  name: 'rotate_webhook_secret',
  title: 'Rotate a webhook secret',
  description:
    'Makes a new signing secret, shown in this answer only. For 24 hours every delivery carries two ' +
    'signatures, by the new secret and the old one, so the receiver can switch over without a gap. Admin role.',
  input: z.object({ webhook_id: webhookId }),
  output: Webhook.extend({
    secret: z.string().describe('The new signing secret (whsec_…), shown this once.'),
  }),
  annotations: webhookWrite,
  write: true,
  permission: 'manage_webhooks',
  mcp: false,
  routes: [
    { method: 'POST', path: '/v1/webhooks/:webhook_id/rotate-secret/', summary: 'Rotate the signing secret' },
  ],
  async handler(ctx, input) {
    const endpoint = await rotate(webhookContext(ctx), input.webhook_id);
    return { ...toWebhook(endpoint, ctx.clock.now()), secret: endpoint.secret };
  },
});
