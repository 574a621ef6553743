import type { Clock } from '../core/clock.ts';
import { InvalidInput, NotFound } from '../core/errors.ts';
import type { Scope } from '../core/principal.ts';
import { newSecret } from '../core/webhook-signing.ts';
import { webhookUrlRefusal } from '../core/webhook-url.ts';
import { newId } from '../db/ids.ts';
import { inTransaction, type Repos } from '../db/repos/index.ts';
import type { ReadRepos } from '../db/repos/read.ts';
import { type DeliveryRow, type EndpointRow, payloadOf } from '../db/repos/webhooks.ts';
import { writable } from '../db/repos/writable.ts';
import { type Actor, type Recorded, type Recorder, record } from './changes.ts';
import { ALL_TYPES, EVENT_TYPES } from './webhook-event-types.ts';

/** How long the old secret keeps signing next to the new one, so receivers can switch without a gap. */
const GRACE_MS = 24 * 3600 * 1000;

/** Who manages a firm's endpoints, from a tool or the account page. */
export interface WebhookContext {
  repos: ReadRepos;
  clock: Clock;
  scope: Scope;
  actor: Actor;
  /** Webhook URLs may name loopback and private addresses (development only). */
  allowPrivateUrls: boolean;
}

export interface WebhookFields {
  url: string;
  eventTypes: string[];
  companyIds: string[] | null;
  description: string | null;
}

export interface WebhookChanges extends Partial<WebhookFields> {
  enabled?: boolean;
}

/**
 * An endpoint's change-log row and event. The event names the endpoint without its URL or secret (a
 * receiver's URL often carries a token of its own), since every reader of the change feed sees it.
 */
function endpointRecord(
  type: 'created' | 'updated' | 'deleted' | 'secret_rotated',
  e: EndpointRow,
): Recorded {
  const data = {
    id: e.id,
    description: e.description,
    event_types: e.event_types,
    company_ids: e.company_ids,
    enabled: e.enabled,
  };
  return {
    change: {
      entity: 'webhook_endpoints',
      entityId: e.id,
      action: type === 'created' ? 'create' : type === 'deleted' ? 'delete' : 'update',
      changes:
        type === 'deleted' ? undefined : { ...data, url: e.url, secret_rotated: type === 'secret_rotated' },
    },
    event: { type: `webhook.${type}`, companyId: null, resourceType: 'webhook', resourceId: e.id, data },
  };
}

/** Runs one write in a transaction with a recorder bound to it. */
function recorded<T>(ctx: WebhookContext, fn: (repos: Repos, r: Recorder) => Promise<T>): Promise<T> {
  const at = ctx.clock.now().toISOString();
  return inTransaction(writable(ctx.repos), (repos) =>
    fn(repos, { repos, firmId: ctx.scope.firmId, actor: ctx.actor, at }),
  );
}

/** Refuses a URL that may not receive webhooks (a host name is resolved to tell), naming the field. */
export async function checkUrl(ctx: WebhookContext, url: string): Promise<void> {
  const problem = await webhookUrlRefusal(url, ctx.allowPrivateUrls);
  if (problem) throw InvalidInput.field('url', problem);
}

function fieldErrors(errors: { field: string; message: string }[]): InvalidInput {
  return new InvalidInput(errors.map((e) => `${e.field}: ${e.message}`).join('; '), errors);
}

/** Known types only, `*` alone; duplicates dropped. */
export function checkEventTypes(types: string[]): string[] {
  const known = new Set<string>([...EVENT_TYPES, ALL_TYPES]);
  const errors = types.flatMap((t, i) =>
    known.has(t)
      ? []
      : [
          {
            field: `event_types[${i}]`,
            message: `unknown event type "${t}"; known: ${EVENT_TYPES.join(', ')}, or "*" for all`,
          },
        ],
  );
  if (errors.length) throw fieldErrors(errors);
  if (types.includes(ALL_TYPES) && types.length > 1)
    throw InvalidInput.field('event_types', '"*" already means every type; give it alone');
  return [...new Set(types)];
}

/** Every company id must be one of the firm's the caller sees. */
async function checkCompanyIds(ctx: WebhookContext, ids: string[] | null): Promise<string[] | null> {
  if (ids === null) return null;
  const unique = [...new Set(ids)];
  const found = await ctx.repos.companies.names(ctx.scope, unique);
  const errors = ids.flatMap((id, i) =>
    found.has(id)
      ? []
      : [{ field: `company_ids[${i}]`, message: `no company with id ${id}; list_companies lists them` }],
  );
  if (errors.length) throw fieldErrors(errors);
  return unique;
}

export async function endpointOf(
  ctx: Pick<WebhookContext, 'repos' | 'scope'>,
  id: string,
): Promise<EndpointRow> {
  const endpoint = await ctx.repos.webhooks.getEndpoint(ctx.scope.firmId, id);
  if (!endpoint) throw new NotFound(`no webhook endpoint with id ${id}; GET /v1/webhooks/ lists them`);
  return endpoint;
}

/** Registers a checked endpoint with a new secret; it receives the events committed after it. */
export async function createWebhook(ctx: WebhookContext, fields: WebhookFields): Promise<EndpointRow> {
  await checkUrl(ctx, fields.url);
  const eventTypes = checkEventTypes(fields.eventTypes);
  const companyIds = await checkCompanyIds(ctx, fields.companyIds);
  return recorded(ctx, async (repos, r) => {
    const endpoint = await repos.webhooks.createEndpoint({
      firmId: r.firmId,
      url: fields.url,
      description: fields.description,
      eventTypes,
      companyIds,
      secret: newSecret(),
      createdBy: ctx.actor.userId,
      now: r.at,
    });
    await record(r, endpointRecord('created', endpoint));
    return endpoint;
  });
}

/** Changes an endpoint; enabling a disabled one clears its failure count. */
export async function updateWebhook(
  ctx: WebhookContext,
  id: string,
  c: WebhookChanges,
): Promise<EndpointRow> {
  await endpointOf(ctx, id);
  if (c.url !== undefined) await checkUrl(ctx, c.url);
  const eventTypes = c.eventTypes && checkEventTypes(c.eventTypes);
  const companyIds = c.companyIds === undefined ? undefined : await checkCompanyIds(ctx, c.companyIds);
  return recorded(ctx, async (repos, r) => {
    await repos.webhooks.updateEndpoint(
      r.firmId,
      id,
      { url: c.url, description: c.description, eventTypes, companyIds, enabled: c.enabled },
      r.at,
    );
    const endpoint = await endpointOf({ repos, scope: ctx.scope }, id);
    await record(r, endpointRecord('updated', endpoint));
    return endpoint;
  });
}

/** Deletes an endpoint and its delivery history. */
export async function deleteWebhook(ctx: WebhookContext, id: string): Promise<void> {
  const endpoint = await endpointOf(ctx, id);
  await recorded(ctx, async (repos, r) => {
    if (!(await repos.webhooks.deleteEndpoint(r.firmId, id)))
      await endpointOf({ repos, scope: ctx.scope }, id);
    await record(r, endpointRecord('deleted', endpoint));
  });
}

/** A new signing secret; the old one keeps signing beside it for a day. */
export async function rotateWebhookSecret(ctx: WebhookContext, id: string): Promise<EndpointRow> {
  await endpointOf(ctx, id);
  return recorded(ctx, async (repos, r) => {
    const until = new Date(Date.parse(r.at) + GRACE_MS).toISOString();
    await repos.webhooks.rotateSecret(r.firmId, id, newSecret(), until, r.at);
    const endpoint = await endpointOf({ repos, scope: ctx.scope }, id);
    await record(r, endpointRecord('secret_rotated', endpoint));
    return endpoint;
  });
}

/**
 * Queues a delivery that is not in the outbox, with its change-log row. No change event: it would be
 * fanned out to the endpoints itself, one more delivery for every test or replay.
 */
function enqueued(ctx: WebhookContext, d: Parameters<Repos['webhooks']['enqueue']>[0]): Promise<DeliveryRow> {
  return recorded(ctx, async (repos, r) => {
    const delivery = await repos.webhooks.enqueue(d);
    await record(r, {
      change: {
        entity: 'webhook_deliveries',
        entityId: delivery.id,
        action: 'create',
        changes: { webhook_id: d.endpointId, event_type: d.eventType, replay_of: d.replayOf },
      },
    });
    return delivery;
  });
}

/** Queues a webhook.test event to one endpoint, whatever its event types. */
export async function sendTestWebhook(ctx: WebhookContext, id: string): Promise<DeliveryRow> {
  const endpoint = await endpointOf(ctx, id);
  const event = {
    id: newId(),
    type: 'webhook.test',
    occurred_at: ctx.clock.now().toISOString(),
    actor_type: ctx.actor.type,
    actor_id: ctx.actor.userId,
    company_id: null,
    data: { webhook_id: endpoint.id, message: 'a test event sent on request' },
  };
  return enqueued(ctx, {
    endpointId: endpoint.id,
    firmId: endpoint.firm_id,
    eventId: event.id,
    eventType: event.type,
    eventSeq: null,
    payload: payloadOf(event),
    replayOf: null,
    now: event.occurred_at,
  });
}

/** Queues one delivery again, with the same webhook-id and body. */
export async function replayWebhookDelivery(
  ctx: WebhookContext,
  webhookId: string,
  deliveryId: string,
): Promise<DeliveryRow> {
  const original = await ctx.repos.webhooks.getDelivery(ctx.scope.firmId, deliveryId);
  if (!original || original.endpoint_id !== webhookId)
    throw new NotFound(
      `no delivery ${deliveryId} of webhook endpoint ${webhookId}; GET /v1/webhooks/${webhookId}/deliveries/ lists them`,
    );
  return enqueued(ctx, {
    endpointId: original.endpoint_id,
    firmId: original.firm_id,
    eventId: original.event_id,
    eventType: original.event_type,
    eventSeq: original.event_seq,
    payload: original.payload,
    replayOf: original.id,
    now: ctx.clock.now().toISOString(),
  });
}
