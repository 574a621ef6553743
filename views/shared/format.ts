// Number formatting and small DOM helpers shared by the views.

/** A decimal string (or null) as a number; null stays null. */
export function num(value: string | number | null | undefined): number | null {
  if (value === null || value === undefined || value === '') return null;
  const n = typeof value === 'number' ? value : Number(value);
  return Number.isFinite(n) ? n : null;
}

const SUFFIXES: [number, string][] = [
  [1e9, 'B'],
  [1e6, 'M'],
  [1e3, 'k'],
];

/** 5236099.5 → "5.24M" (with the currency code when given). */
export function compact(value: number | null, currency?: string | null): string {
  if (value === null) return '—';
  const abs = Math.abs(value);
  let text = `${Number(value.toFixed(abs < 10 ? 2 : 0))}`;
  for (const [size, suffix] of SUFFIXES) {
    if (abs >= size) {
      const scaled = value / size;
      text = `${Number(scaled.toFixed(Math.abs(scaled) < 10 ? 2 : 1))}${suffix}`;
      break;
    }
  }
  return currency ? `${text} ${currency}` : text;
}

export function percent(value: number | null, digits = 1): string {
  return value === null ? '—' : `${value > 0 ? '+' : ''}${value.toFixed(digits)} %`;
}

export function multiple(value: number | null): string {
  return value === null ? '—' : `${value.toFixed(2)}×`;
}

type Child = Node | string | null | undefined | false;

/** An HTML element with attributes (on… handlers as functions) and children. */
export function h<K extends keyof HTMLElementTagNameMap>(
  tag: K,
  attrs: Record<string, string | number | boolean | ((e: Event) => void)> = {},
  ...children: Child[]
): HTMLElementTagNameMap[K] {
  const node = document.createElement(tag);
  for (const [k, v] of Object.entries(attrs)) {
    if (typeof v === 'function') node.addEventListener(k.slice(2), v);
    else if (v === true) node.setAttribute(k, '');
    else if (v !== false) node.setAttribute(k, String(v));
  }
  for (const c of children) if (c !== null && c !== undefined && c !== false) node.append(c);
  return node;
}

export function message(text: string, kind: 'note' | 'error' = 'note'): HTMLElement {
  return h('p', { class: kind }, text);
}
