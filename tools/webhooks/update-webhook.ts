import { z } from 'zod';
import { updateWebhook as update } from '../../services/webhooks.ts';
import { defineTool } from '../define.ts';
import { MissingParameter } from '../errors.ts';
import {
  CompanyIds,
  Description,
  EventTypes,
  toWebhook,
  Webhook,
  WebhookUrl,
  webhookContext,
  webhookId,
  webhookWrite,
} from './common.ts';

export const updateWebhook = defineTool({
  name: 'update_webhook',
  title: 'Update a webhook endpoint',
  description:
    'Changes the URL, event types, company filter, description or enabled state of an endpoint. Enabling a ' +
    'disabled one clears its failure count; events of the time it was disabled are then sent. Admin role.',
  input: z.object({
    webhook_id: webhookId,
    url: WebhookUrl.optional(),
    event_types: EventTypes.optional(),
    company_ids: CompanyIds.optional(),
    description: Description.optional(),
    enabled: z.boolean().optional().describe('False pauses deliveries; true resumes them.'),
  }),
  output: Webhook,
  annotations: { ...webhookWrite, idempotentHint: true },
  write: true,
  permission: 'manage_webhooks',
  mcp: false,
  routes: [
    {
      method: 'PATCH',
      path: '/v1/webhooks/:webhook_id/',
      summary: 'Change a webhook endpoint',
      body: 'merge',
    },
  ],
  async handler(ctx, input) {
    const { webhook_id, ...changes } = input;
    if (Object.values(changes).every((v) => v === undefined))
      throw new MissingParameter('give at least one of url, event_types, company_ids, description, enabled');
    const endpoint = await update(webhookContext(ctx), webhook_id, {
      url: input.url,
      description: input.description,
      eventTypes: input.event_types,
      companyIds: input.company_ids,
      enabled: input.enabled,
    });
    return toWebhook(endpoint, ctx.clock.now());
  },
});
