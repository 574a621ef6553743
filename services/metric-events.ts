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

interface Group {
  first: ChangedDatum;
  count: number;
  from: string;
  to: string;
}

/**
 * The events of a metric write: one per type, company, category, cadence and budget, whatever the
 * number of points, with the count and the date range; a group of one point also carries the datum.
 * Metric data keep their own history (metric_history), so these have no change-log row. Points are
 * added one by one and only counted, so a write of 144,000 points keeps a few groups, not its points.
 */
export class MetricEventSummary {
  private readonly groups = new Map<string, Group>();

  add(d: ChangedDatum): void {
    const key = `${d.type}|${d.companyId}|${d.category.id}|${d.cadence}|${d.budgetId ?? ''}`;
    const group = this.groups.get(key);
    if (!group) {
      this.groups.set(key, { first: d, count: 1, from: d.date, to: d.date });
      return;
    }
    group.count++;
    if (d.date < group.from) group.from = d.date;
    if (d.date > group.to) group.to = d.date;
  }

  recorded(): Recorded[] {
    return [...this.groups.values()].map(({ first, count, from, to }) => {
      const data: Record<string, unknown> = {
        category: first.category.is_standard ? first.category.name : CUSTOM_CATEGORY,
        custom_metric: first.category.is_standard ? null : first.category.name,
        metric_cadence: first.cadence,
        is_budget_metric: first.budgetId !== null,
        budget_id: first.budgetId,
        count,
        from_date: from,
        to_date: to,
      };
      if (count === 1)
        data.datum = { id: first.id, date: first.date, value: first.value, currency: first.currency };
      return {
        event: {
          type: first.type,
          companyId: first.companyId,
          resourceType: 'metric',
          resourceId: count === 1 ? first.id : null,
          data,
        },
      };
    });
  }
}

/** The events of the changed data of one write (see MetricEventSummary). */
export function metricEvents(changed: readonly ChangedDatum[]): Recorded[] {
  const summary = new MetricEventSummary();
  for (const d of changed) summary.add(d);
  return summary.recorded();
}
