import { z } from 'zod';
import { newSecret } from '../../webhooks/signing.ts';
import { defineTool } from '../define.ts';
import {
  CompanyIds,
  checkCompanyIds,
  checkEventTypes,
  checkUrl,
  Description,
  EventTypes,
  toWebhook,
  Webhook,
  WebhookUrl,
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
  async handler(ctx, input) {
    await checkUrl(ctx, input.url);
    const eventTypes = checkEventTypes(input.event_types);
    const companyIds = await checkCompanyIds(ctx, input.company_ids);
    const now = ctx.clock.now();
    const endpoint = await ctx.repos.webhooks.createEndpoint({
      firmId: ctx.principal.firm.id,
      url: input.url,
      description: input.description,
      eventTypes,
      companyIds,
      secret: newSecret(),
      createdBy: ctx.principal.user.id,
      now: now.toISOString(),
    });
    return { ...toWebhook(endpoint, now), secret: endpoint.secret };
  },
});
