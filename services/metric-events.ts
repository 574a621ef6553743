import { CUSTOM_CATEGORY } from '../core/categories.ts';
import type { Recorded } from './changes.ts';

export type MetricEventType = 'metric.created' | 'metric.updated' | 'metric.deleted';

/** One datum changed by a write, as the events of that write summarise it. */
export interface ChangedDatum {
  type: MetricEventType;
  companyId: string;
  category: { id: string; name: string; is_standard: boolean };
  cadence: string;
  date: string;
  budgetId: string | null;
  id: string;
  value: string | null;
  currency: string | null;
}

/**
 * The events of a metric write: one per type, company, category, cadence and budget, whatever the
 * number of points, with the count and the date range; a group of one point also carries the datum.
 * Metric data keep their own history (metric_history), so these have no change-log row.
 */
export function metricEvents(changed: readonly ChangedDatum[]): Recorded[] {
  const groups = new Map<string, ChangedDatum[]>();
  for (const d of changed) {
    const key = [d.type, d.companyId, d.category.id, d.cadence, d.budgetId ?? ''].join('|');
    const group = groups.get(key);
    if (group) group.push(d);
    else groups.set(key, [d]);
  }
  return [...groups.values()].map((group) => {
    const first = group[0]!;
    let from = first.date;
    let to = first.date;
    for (const d of group) {
      if (d.date < from) from = d.date;
      if (d.date > to) to = d.date;
    }
    const data: Record<string, unknown> = {
      category: first.category.is_standard ? first.category.name : CUSTOM_CATEGORY,
      custom_metric: first.category.is_standard ? null : first.category.name,
      metric_cadence: first.cadence,
      is_budget_metric: first.budgetId !== null,
      budget_id: first.budgetId,
      count: group.length,
      from_date: from,
      to_date: to,
    };
    if (group.length === 1) {
      data.datum = { id: first.id, date: first.date, value: first.value, currency: first.currency };
    }
    return {
      event: {
        type: first.type,
        companyId: first.companyId,
        resourceType: 'metric',
        resourceId: group.length === 1 ? first.id : null,
        data,
      },
    };
  });
}
