/**
 * The event types an endpoint may subscribe to: `<resource>.<what happened>`, as the write services append
 * them to the outbox, plus `webhook.test`. `*` subscribes to all of them, and to types added later.
 */
export const EVENT_TYPES = [
  'company.created',
  'company.updated',
  'company.logo_updated',
  'metric.created',
  'metric.updated',
  'metric.deleted',
  'budget.created',
  'budget.updated',
  'note.created',
  'document.created',
  'custom_column_value.updated',
  'share_class.created',
  'security.created',
  'financing_round.created',
  'transaction.created',
  'cap_table_override.updated',
  'alert.triggered',
  'alert.cleared',
  'webhook.test',
] as const;

export const ALL_TYPES = '*';
