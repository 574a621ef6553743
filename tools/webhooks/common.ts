import { z } from 'zod';
import type { DeliveryRow, EndpointRow } from '../../db/repos/webhooks.ts';
import { actorOf } from '../../services/changes.ts';
import { EVENT_TYPES } from '../../services/webhook-event-types.ts';
import { endpointOf as serviceEndpointOf, type WebhookContext } from '../../services/webhooks.ts';
import type { ToolContext } from '../context.ts';
import type { ToolAnnotations } from '../define.ts';

/** Writes that change what leaves the service (the registry counts every write but a create as destructive). */
export const webhookWrite: ToolAnnotations = {
  readOnlyHint: false,
  destructiveHint: true,
  idempotentHint: false,
  openWorldHint: true,
};

export const webhookId = z
  .string()
  .min(1)
  .max(64)
  .describe('Webhook endpoint id (GET /v1/webhooks/ lists them).');

export const WebhookUrl = z.string().min(1).max(2000).describe('The https URL events are POSTed to.');
export const EventTypes = z
  .array(z.string().min(1).max(64))
  .min(1)
  .max(EVENT_TYPES.length + 1)
  .describe(`Event types to send, or ["*"] for all (also types added later): ${EVENT_TYPES.join(', ')}.`);
export const CompanyIds = z
  .array(z.string().min(1).max(64))
  .min(1)
  .max(500)
  .nullable()
  .describe('Only events of these companies (firm-wide events are then left out); null for all.');
export const Description = z.string().max(500).nullable().describe('What the endpoint is for.');

export const Webhook = z.object({
  id: z.string(),
  url: z.string(),
  description: z.string().nullable(),
  event_types: z.array(z.string()),
  company_ids: z.array(z.string()).nullable(),
  enabled: z.boolean(),
  disabled_reason: z
    .string()
    .nullable()
    .describe('Why the endpoint is disabled (repeated failures, or a user).'),
  disabled_at: z.string().nullable(),
  consecutive_failures: z.number().int().describe('Failed attempts since the last delivered one.'),
  previous_secret_valid_until: z
    .string()
    .nullable()
    .describe('After a rotation, until when the old secret also signs.'),
  created_at: z.string(),
  updated_at: z.string(),
});

export function toWebhook(e: EndpointRow, now: Date): z.infer<typeof Webhook> {
  const until =
    e.previous_secret_until && e.previous_secret_until > now.toISOString() ? e.previous_secret_until : null;
  return {
    id: e.id,
    url: e.url,
    description: e.description,
    event_types: e.event_types,
    company_ids: e.company_ids,
    enabled: e.enabled,
    disabled_reason: e.enabled ? null : e.disabled_reason,
    disabled_at: e.enabled ? null : e.disabled_at,
    consecutive_failures: e.consecutive_failures,
    previous_secret_valid_until: until,
    created_at: e.created_at,
    updated_at: e.updated_at,
  };
}

export const Delivery = z.object({
  id: z.string(),
  webhook_id: z.string(),
  event_id: z.string().describe('The webhook-id header: the same on every attempt and replay.'),
  event_type: z.string(),
  status: z
    .enum(['pending', 'delivering', 'delivered', 'failed'])
    .describe('pending (waiting for its next attempt), delivering, delivered, or failed (attempts used up).'),
  attempts: z.number().int(),
  next_attempt_at: z.string().nullable(),
  last_attempt_at: z.string().nullable(),
  last_status_code: z.number().int().nullable(),
  last_error: z.string().nullable(),
  last_duration_ms: z.number().int().nullable(),
  replay_of: z.string().nullable(),
  created_at: z.string(),
});

export function toDelivery(d: DeliveryRow, now: Date): z.infer<typeof Delivery> {
  const delivering =
    d.status === 'pending' && d.claimed_until !== null && d.claimed_until > now.toISOString();
  return {
    id: d.id,
    webhook_id: d.endpoint_id,
    event_id: d.event_id,
    event_type: d.event_type,
    status: delivering ? 'delivering' : d.status,
    attempts: d.attempts,
    next_attempt_at: d.status === 'pending' ? d.next_attempt_at : null,
    last_attempt_at: d.last_attempt_at,
    last_status_code: d.last_status_code,
    last_error: d.last_error,
    last_duration_ms: d.last_duration_ms,
    replay_of: d.replay_of,
    created_at: d.created_at,
  };
}

/** The webhook service's view of a tool call: whose change it is, over which firm. */
export function webhookContext(ctx: ToolContext): WebhookContext {
  return {
    repos: ctx.repos,
    clock: ctx.clock,
    scope: ctx.principal.scope,
    actor: actorOf(ctx.principal),
    allowPrivateUrls: ctx.webhookAllowPrivateUrls ?? false,
  };
}

export function endpointOf(ctx: ToolContext, id: string): Promise<EndpointRow> {
  return serviceEndpointOf({ repos: ctx.repos, scope: ctx.principal.scope }, id);
}
