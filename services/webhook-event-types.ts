import { UNDELIVERED_EVENT_PREFIX } from '../db/repos/webhooks.ts';
import { EVENT_TYPES as CHANGE_EVENT_TYPES } from './event-types.ts';

/**
 * The event types an endpoint may subscribe to: every change event the write services append to the
 * outbox but the endpoints' own changes, plus `webhook.test`. `*` subscribes to all of them, and to
 * types added later.
 */
export const EVENT_TYPES = [
  ...CHANGE_EVENT_TYPES.filter((t) => !t.startsWith(UNDELIVERED_EVENT_PREFIX)),
  'webhook.test',
] as const;

export const ALL_TYPES = '*';
