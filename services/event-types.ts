/** Every type of change event, by the record it announces. */
export const EVENT_TYPES = [
  'company.created',
  'company.updated',
  'metric.created',
  'metric.updated',
  'metric.deleted',
  'note.created',
  'custom_column_value.updated',
  'document.uploaded',
  'document.parsed',
  'financing_round.created',
  'financing_round.updated',
  'share_class.created',
  'security.created',
  'transaction.created',
  'override.updated',
  'budget.created',
  'budget.updated',
  'alert.triggered',
  'alert.cleared',
  'alert_rule.created',
  'alert_rule.updated',
  'alert_rule.deleted',
] as const;
export type EventType = (typeof EVENT_TYPES)[number];

/** Types a user without access to documents never sees. */
export const DOCUMENT_EVENT_TYPES: readonly EventType[] = ['document.uploaded', 'document.parsed'];
