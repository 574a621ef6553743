import { z } from 'zod';
import { defineTool } from '../define.ts';
import { MissingParameter } from '../errors.ts';
import {
  CompanyIds,
  checkCompanyIds,
  checkEventTypes,
  checkUrl,
  Description,
  EventTypes,
  endpointOf,
  toWebhook,
  Webhook,
  WebhookUrl,
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
  async handler(ctx, input) {
    const { webhook_id, ...changes } = input;
    if (Object.values(changes).every((v) => v === undefined))
      throw new MissingParameter('give at least one of url, event_types, company_ids, description, enabled');
    await endpointOf(ctx, webhook_id);
    if (input.url !== undefined) await checkUrl(ctx, input.url);
    const now = ctx.clock.now();
    await ctx.repos.webhooks.updateEndpoint(
      ctx.principal.firm.id,
      webhook_id,
      {
        url: input.url,
        description: input.description,
        eventTypes: input.event_types && checkEventTypes(input.event_types),
        companyIds:
          input.company_ids === undefined ? undefined : await checkCompanyIds(ctx, input.company_ids),
        enabled: input.enabled,
      },
      now.toISOString(),
    );
    return toWebhook(await endpointOf(ctx, webhook_id), now);
  },
});
