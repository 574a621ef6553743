import { z } from 'zod';
import { createWebhook as create } from '../../services/webhooks.ts';
import { defineTool } from '../define.ts';
import {
  CompanyIds,
  Description,
  EventTypes,
  toWebhook,
  Webhook,
  WebhookUrl,
  webhookContext,
  webhookWrite,
} from './common.ts';

export const createWebhook = defineTool({
  name: 'create_webhook',
  title: 'Create a webhook endpoint',
  description:
    'Registers an https URL to receive signed change events (Standard Webhooks). The signing secret is in ' +
    'this answer only. Admin role.',
  input: z.object({
    url: WebhookUrl,
    event_types: EventTypes.default(['*']),
    company_ids: CompanyIds.default(null),
    description: Description.default(null),
  }),
  output: Webhook.extend({
    secret: z
      .string()
      .describe('The signing secret (whsec_…): shown this once; keep it to verify signatures.'),
  }),
  annotations: { ...webhookWrite, destructiveHint: false },
  write: true,
  permission: 'manage_webhooks',
  mcp: false,
  routes: [
    {
      method: 'POST',
      path: '/v1/webhooks/',
      summary: 'Create a webhook endpoint (the secret is shown once)',
      body: 'merge',
      status: 201,
    },
  ],
  async handler(ctx, input) {
    const endpoint = await create(webhookContext(ctx), {
      url: input.url,
      eventTypes: input.event_types,
      companyIds: input.company_ids,
      description: input.description,
    });
    return { ...toWebhook(endpoint, ctx.clock.now()), secret: endpoint.secret };
  },
});
