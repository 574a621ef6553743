import type { GridCell } from '../../parsing/grid.ts';

/** A figure in a cell: numbers, and text such as `(1,234)`, `1,234.5`, `-12`, `12%`; dashes are empty. */
export function figureOf(cell: GridCell): number | undefined {
  if (typeof cell === 'number') return cell;
  if (typeof cell !== 'string') return undefined;
  const m = /^(\()?\s*-?\s*[$€£₹]?\s*(-?[\d,]*\.?\d+)\s*(%)?\s*(\))?$/.exec(cell.trim());
  // Thousands grouped by three, or the Indian way (`3,96,90,606.06`: lakhs and crores).
  if (!m || !/^-?(\d{1,3}(,\d{3})*|\d{1,2}(,\d{2})*,\d{3}|\d+)(\.\d+)?$|^-?\.\d+$/.test(m[2]!))
    return undefined;
  let n = Number(m[2]!.replace(/,/g, ''));
  if ((m[1] && m[4]) || cell.trim().startsWith('-')) n = -Math.abs(n);
  return m[3] ? n / 100 : n;
}
