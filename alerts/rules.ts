// What an alert rule may watch and how its condition is checked. The figures are the screen's
// (screen_companies), plus `stale` and `late_information_report`.

import { FIGURE_NAMES, FIGURE_UNITS, type FigureName } from '../analytics/screen-figures.ts';
import * as D from '../core/decimal.ts';
import { thresholdValue } from '../services/alerts.ts';

export const EXTRA_FIGURES = ['stale', 'late_information_report'] as const;
export const RULE_FIGURES = [...FIGURE_NAMES, ...EXTRA_FIGURES] as [string, ...string[]];
export type RuleFigure = FigureName | (typeof EXTRA_FIGURES)[number];
export const RULE_OPS = ['lt', 'lte', 'gt', 'gte', 'eq', 'ne'] as const;
export type RuleOp = (typeof RULE_OPS)[number];

export const isScreenFigure = (f: string): f is FigureName => f in FIGURE_UNITS;

const holds: Record<RuleOp, (c: number) => boolean> = {
  lt: (c) => c < 0,
  lte: (c) => c <= 0,
  gt: (c) => c > 0,
  gte: (c) => c >= 0,
  eq: (c) => c === 0,
  ne: (c) => c !== 0,
};

/**
 * The stored threshold of a rule's value, or the problem with it: `stale` takes true or false (and
 * only eq or ne), every other figure a finite number (days past due for late_information_report).
 */
export function thresholdOf(
  figure: string,
  op: RuleOp,
  value: number | boolean,
): { threshold: string } | { field: 'op' | 'value'; message: string } {
  if (figure === 'stale') {
    if (typeof value !== 'boolean') return { field: 'value', message: 'must be true or false for stale' };
    if (op !== 'eq' && op !== 'ne') return { field: 'op', message: 'must be eq or ne for stale' };
    return { threshold: String(value) };
  }
  const text = typeof value === 'number' ? D.decimalFromNumber(value) : null;
  if (text === null) return { field: 'value', message: `must be a finite number for ${figure}` };
  const digits = D.decimalDigitsProblem(text);
  if (digits) return { field: 'value', message: digits };
  return { threshold: text };
}

/** Whether a figure's value meets the condition; a figure without a value never does. */
export function conditionHolds(value: string | null, op: RuleOp, threshold: string): boolean {
  if (value === null) return false;
  if (threshold === 'true' || threshold === 'false') return holds[op](value === threshold ? 0 : 1);
  return holds[op](D.compareDecimal(value, threshold));
}

/** The rule's threshold as the caller gave it: a boolean for stale, else a number. */

export { thresholdValue };
