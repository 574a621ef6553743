import type { GridCell } from '../../parsing/grid.ts';
import { figureOf } from './figures.ts';
import type { Header } from './header.ts';
import { type Period, titlePeriod } from './periods.ts';

type Dense = GridCell[][];

/** Headings of a column that holds something other than the titled period's amounts. */
const NOT_THE_PERIOD =
  /%|\b(ytd|year to date|var|variance|change|movement|growth|comments?|notes?|budget|plan|forecast|prior|last year|ly|py)\b/i;

const isFigure = (cell: GridCell | undefined) => figureOf(cell ?? null) !== undefined;

/**
 * The header of a statement of one period, named in its title (an accounting package's export: a
 * profit and loss for a month, a balance sheet as at a day): one column of amounts, or two side by side
 * that take turns (lines in one, their totals in the next). A sheet with more columns of amounts (cost
 * centres, comparatives) has no such header.
 */
export function titledHeader(rows: Dense): Header | undefined {
  const firstFigure = rows.findIndex((row) => row.some((c, i) => i > 0 && isFigure(c)));
  if (firstFigure < 1) return undefined;
  let period: Period | undefined;
  for (const row of rows.slice(0, Math.min(firstFigure, 10)))
    for (const cell of row) if (!period && typeof cell === 'string') period = titlePeriod(cell);
  if (!period) return undefined;
  const counts = new Map<number, number>();
  for (const row of rows.slice(firstFigure))
    row.forEach((cell, c) => {
      if (c > 0 && isFigure(cell)) counts.set(c, (counts.get(c) ?? 0) + 1);
    });
  // A column headed as no amount of the period (`% of revenue`, `Variance`, `YTD`, `Budget`) is left out;
  // `Total`, as accounting packages head their one column of amounts, is the amount.
  for (const c of [...counts.keys()]) {
    const heads = rows.slice(Math.max(0, firstFigure - 3), firstFigure).map((row) => row[c]);
    if (heads.some((h) => typeof h === 'string' && NOT_THE_PERIOD.test(h))) counts.delete(c);
  }
  if (counts.size === 0) return undefined;
  const most = Math.max(...counts.values());
  const columns = [...counts]
    .filter(([, n]) => n >= Math.max(3, most / 5))
    .map(([c]) => c)
    .sort((a, b) => a - b);
  const adjacent = columns.length === 2 && columns[1] === columns[0]! + 1;
  if (columns.length !== 1 && !adjacent) return undefined;
  return {
    row: firstFigure - 1,
    end: firstFigure - 1,
    columns: new Map(
      columns.map((c) => [c, { period: period!, kind: 'actual' as const, stated: false, confidence: 0.8 }]),
    ),
  };
}
