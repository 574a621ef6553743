// Hand-written SVG charts: lines with gaps, bars, a bubble scatter and sparklines. Colours come from CSS
// variables so the host's light or dark theme applies; every mark carries a class a test can count.

const NS = 'http://www.w3.org/2000/svg';

export type Attrs = Record<string, string | number>;

export function el<K extends keyof SVGElementTagNameMap>(tag: K, attrs: Attrs = {}, text?: string) {
  const node = document.createElementNS(NS, tag);
  for (const [k, v] of Object.entries(attrs)) node.setAttribute(k, String(v));
  if (text !== undefined) node.textContent = text;
  return node;
}

function titled<T extends SVGElement>(node: T, title: string): T {
  node.appendChild(el('title', {}, title));
  return node;
}

/** About `count` round tick values covering [min, max]. */
export function ticks(min: number, max: number, count = 4): number[] {
  if (min === max) {
    const pad = Math.abs(min) * 0.1 || 1;
    min -= pad;
    max += pad;
  }
  const raw = (max - min) / count;
  const mag = 10 ** Math.floor(Math.log10(raw));
  const step = ([1, 2, 2.5, 5, 10].find((m) => m * mag >= raw) ?? 10) * mag;
  const out: number[] = [];
  for (let v = Math.floor(min / step) * step; v <= max + step * 1e-9; v += step)
    out.push(Number(v.toPrecision(12)));
  if (out[out.length - 1]! < max) out.push(Number((out[out.length - 1]! + step).toPrecision(12)));
  return out;
}

export interface Series {
  name: string;
  values: (number | null)[];
  /** A CSS colour, usually var(--…). */
  color: string;
  dashed?: boolean;
  /** Bars instead of a line. */
  bars?: boolean;
}

export interface ChartOptions {
  labels: string[];
  series: Series[];
  format(value: number): string;
  height?: number;
  /** Dots on every value of the line series (default true). */
  dots?: boolean;
}

const W = 480;
/** The width of a chart that spans the page: drawn at about its own size, so its text stays small. */
const WIDE = 860;
const PAD = { left: 56, right: 10, top: 10, bottom: 24 };

/** A line (and bar) chart over shared x labels; a null value is a gap in its line. */
export function chart(options: ChartOptions): SVGSVGElement {
  const H = options.height ?? 170;
  const svg = el('svg', { viewBox: `0 0 ${W} ${H}`, class: 'chart', role: 'img' });
  const values = options.series.flatMap((s) => s.values).filter((v): v is number => v !== null);
  const hasBars = options.series.some((s) => s.bars);
  const lo = Math.min(...values, hasBars ? 0 : Number.POSITIVE_INFINITY);
  const hi = Math.max(...values, hasBars ? 0 : Number.NEGATIVE_INFINITY);
  const yTicks = values.length ? ticks(lo, hi) : [0, 1];
  const y0 = yTicks[0]!;
  const y1 = yTicks[yTicks.length - 1]!;
  const n = options.labels.length;
  const plotW = W - PAD.left - PAD.right;
  const plotH = H - PAD.top - PAD.bottom;
  const band = plotW / Math.max(n, 1);
  const x = (i: number) => PAD.left + band * (i + 0.5);
  const y = (v: number) => PAD.top + plotH - ((v - y0) / (y1 - y0 || 1)) * plotH;

  for (const t of yTicks) {
    svg.appendChild(el('line', { x1: PAD.left, x2: W - PAD.right, y1: y(t), y2: y(t), class: 'grid' }));
    svg.appendChild(
      el('text', { x: PAD.left - 6, y: y(t) + 4, 'text-anchor': 'end', class: 'tick' }, options.format(t)),
    );
  }
  const every = Math.max(1, Math.ceil(n / 6));
  options.labels.forEach((label, i) => {
    if ((n - 1 - i) % every === 0)
      svg.appendChild(el('text', { x: x(i), y: H - 6, 'text-anchor': 'middle', class: 'tick' }, label));
  });

  const barSeries = options.series.filter((s) => s.bars);
  const barW = (band * 0.7) / Math.max(barSeries.length, 1);
  barSeries.forEach((s, k) => {
    s.values.forEach((v, i) => {
      if (v === null) return;
      const top = Math.min(y(v), y(0));
      const rect = el('rect', {
        x: x(i) - (band * 0.7) / 2 + k * barW,
        y: top,
        width: Math.max(barW - 1, 1),
        height: Math.max(Math.abs(y(v) - y(0)), 1),
        class: 'bar',
        'data-series': s.name,
        style: `fill:${s.color}`,
      });
      svg.appendChild(titled(rect, `${s.name} ${options.labels[i]}: ${options.format(v)}`));
    });
  });

  for (const s of options.series.filter((s) => !s.bars)) {
    let d = '';
    let pen = false;
    s.values.forEach((v, i) => {
      if (v === null) {
        pen = false;
        return;
      }
      d += `${pen ? 'L' : 'M'}${x(i).toFixed(1)},${y(v).toFixed(1)}`;
      pen = true;
    });
    svg.appendChild(
      el('path', {
        d,
        class: `line${s.dashed ? ' dashed' : ''}`,
        'data-series': s.name,
        style: `stroke:${s.color}`,
      }),
    );
    if (options.dots === false) continue;
    s.values.forEach((v, i) => {
      if (v === null) return;
      const dot = el('circle', {
        cx: x(i),
        cy: y(v),
        r: s.dashed ? 2 : 2.5,
        class: 'pt',
        'data-series': s.name,
        style: `fill:${s.color}`,
      });
      svg.appendChild(titled(dot, `${s.name} ${options.labels[i]}: ${options.format(v)}`));
    });
  }
  return svg;
}

/** Horizontal bars, one per item, largest first as given. */
export function hbars(
  items: { label: string; value: number }[],
  format: (v: number) => string,
): SVGSVGElement {
  const row = 22;
  const labelW = 150;
  const H = items.length * row + 8;
  const svg = el('svg', { viewBox: `0 0 ${W} ${H}`, class: 'chart', role: 'img' });
  const max = Math.max(...items.map((i) => i.value), 0) || 1;
  const span = W - labelW - 80;
  items.forEach((item, i) => {
    const top = 4 + i * row;
    svg.appendChild(
      el('text', { x: labelW - 8, y: top + 14, 'text-anchor': 'end', class: 'label' }, item.label),
    );
    const rect = el('rect', {
      x: labelW,
      y: top + 3,
      width: Math.max((Math.max(item.value, 0) / max) * span, 1),
      height: row - 8,
      class: 'bar',
      style: 'fill:var(--c1)',
    });
    svg.appendChild(titled(rect, `${item.label}: ${format(item.value)}`));
    svg.appendChild(
      el(
        'text',
        { x: labelW + Math.max((item.value / max) * span, 1) + 6, y: top + 14, class: 'value' },
        format(item.value),
      ),
    );
  });
  return svg;
}

export interface Bubble {
  id: string;
  label: string;
  x: number;
  y: number;
  /** Area grows with size; null or 0 draws the smallest bubble. */
  size: number | null;
}

/** A scatter of bubbles sized by area; clicking one calls onPick with its id. */
export function scatter(
  bubbles: Bubble[],
  axes: { x: string; y: string; fx(v: number): string; fy(v: number): string; fsize(v: number): string },
  onPick: (id: string) => void,
): SVGSVGElement {
  const W = WIDE;
  const H = 300;
  const pad = { left: 56, right: 16, top: 14, bottom: 36 };
  const svg = el('svg', { viewBox: `0 0 ${W} ${H}`, class: 'chart scatter', role: 'img' });
  const xs = ticks(Math.min(0, ...bubbles.map((b) => b.x)), Math.max(...bubbles.map((b) => b.x), 1));
  const ys = ticks(Math.min(0, ...bubbles.map((b) => b.y)), Math.max(...bubbles.map((b) => b.y), 1));
  const sx = (v: number) => pad.left + ((v - xs[0]!) / (xs.at(-1)! - xs[0]!)) * (W - pad.left - pad.right);
  const sy = (v: number) =>
    H - pad.bottom - ((v - ys[0]!) / (ys.at(-1)! - ys[0]!)) * (H - pad.top - pad.bottom);
  for (const t of ys) {
    svg.appendChild(el('line', { x1: pad.left, x2: W - pad.right, y1: sy(t), y2: sy(t), class: 'grid' }));
    svg.appendChild(
      el('text', { x: pad.left - 6, y: sy(t) + 4, 'text-anchor': 'end', class: 'tick' }, axes.fy(t)),
    );
  }
  for (const t of xs) {
    svg.appendChild(
      el('text', { x: sx(t), y: H - pad.bottom + 14, 'text-anchor': 'middle', class: 'tick' }, axes.fx(t)),
    );
  }
  svg.appendChild(el('text', { x: W - pad.right, y: H - 4, 'text-anchor': 'end', class: 'axis' }, axes.x));
  svg.appendChild(el('text', { x: 4, y: 10, class: 'axis' }, axes.y));
  const maxSize = Math.max(...bubbles.map((b) => b.size ?? 0), 1);
  // Largest first, so small bubbles stay on top and clickable.
  for (const b of [...bubbles].sort((a, c) => (c.size ?? 0) - (a.size ?? 0))) {
    const r = 4 + 16 * Math.sqrt(Math.max(b.size ?? 0, 0) / maxSize);
    const dot = el('circle', { cx: sx(b.x), cy: sy(b.y), r, class: 'dot', 'data-id': b.id, tabindex: 0 });
    titled(
      dot,
      `${b.label}: ${axes.x} ${axes.fx(b.x)}, ${axes.y} ${axes.fy(b.y)}${b.size === null ? '' : `, ARR ${axes.fsize(b.size)}`}`,
    );
    dot.addEventListener('click', () => onPick(b.id));
    dot.addEventListener('keydown', (e) => {
      if ((e as KeyboardEvent).key === 'Enter') onPick(b.id);
    });
    svg.appendChild(dot);
  }
  return svg;
}

/** A small line of the values (nulls skipped), the last value marked. */
export function sparkline(values: (number | null)[]): SVGSVGElement {
  const w = 90;
  const h = 24;
  const svg = el('svg', { viewBox: `0 0 ${w} ${h}`, class: 'spark', width: w, height: h });
  const known = values
    .map((v, i) => [i, v] as const)
    .filter((p): p is readonly [number, number] => p[1] !== null);
  svg.setAttribute('data-points', String(known.length));
  if (known.length === 0) return svg;
  const lo = Math.min(...known.map((p) => p[1]));
  const hi = Math.max(...known.map((p) => p[1]));
  const x = (i: number) => 2 + (i / Math.max(values.length - 1, 1)) * (w - 4);
  const y = (v: number) => h - 3 - ((v - lo) / (hi - lo || 1)) * (h - 6);
  const d = known.map(([i, v], k) => `${k ? 'L' : 'M'}${x(i).toFixed(1)},${y(v).toFixed(1)}`).join('');
  svg.appendChild(el('path', { d, class: 'line', style: 'stroke:var(--c1)' }));
  const [li, lv] = known[known.length - 1]!;
  svg.appendChild(el('circle', { cx: x(li), cy: y(lv), r: 2, style: 'fill:var(--c1)' }));
  return svg;
}
