import { EVENT_TYPES as CHANGE_EVENT_TYPES } from '../services/event-types.ts';

/**
 * The event types an endpoint may subscribe to: every change event the write services append to the
 * outbox, plus `webhook.test`. `*` subscribes to all of them, and to types added later.
 */
export const EVENT_TYPES = [...CHANGE_EVENT_TYPES, 'webhook.test'] as const;

export const ALL_TYPES = '*';
