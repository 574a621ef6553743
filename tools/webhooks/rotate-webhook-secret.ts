import { z } from 'zod';
import { newSecret } from '../../webhooks/signing.ts';
import { defineTool } from '../define.ts';
import { endpointOf, toWebhook, Webhook, webhookId, webhookWrite } from './common.ts';

/** How long the old secret keeps signing next to the new one, so receivers can switch without a gap. */
const GRACE_MS = 24 * 3600 * 1000;

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
  async handler(ctx, input) {
    await endpointOf(ctx, input.webhook_id);
    const now = ctx.clock.now();
    const secret = newSecret();
    await ctx.repos.webhooks.rotateSecret(
      ctx.principal.firm.id,
      input.webhook_id,
      secret,
      new Date(now.getTime() + GRACE_MS).toISOString(),
      now.toISOString(),
    );
    return { ...toWebhook(await endpointOf(ctx, input.webhook_id), now), secret };
  },
});
