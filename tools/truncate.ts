// Keeps every tool result within what a model can read: about 25,000 tokens.
import { groupThousands } from '../core/grouping.ts';

/** Largest JSON text of one tool result, in characters (about 25,000 tokens). */
export const MAX_RESULT_CHARS = 100_000;

/** The longest text fields are cut to these lengths in turn until the result fits. */
const STRING_LIMITS = [10_000, 2_000] as const;

/**
 * `text` cut after `max` characters with an explicit marker saying how much is missing and `hint`,
 * how to read the rest; unchanged when it already fits.
 */
export function truncateText(text: string, max: number, hint: string): string {
  if (text.length <= max) return text;
  let cut = max;
  // Never split a surrogate pair.
  const last = text.charCodeAt(cut - 1);
  if (cut > 0 && last >= 0xd800 && last <= 0xdbff) cut -= 1;
  const rest = text.length - cut;
  return `${text.slice(0, cut)}… [truncated: ${groupThousands(rest)} more characters; ${hint}]`;
}

export interface TextContent {
  type: 'text';
  text: string;
}

/** A tool result for MCP: the structured value and the same JSON as text, plus a notice when cut. */
export interface BoundedResult {
  [key: string]: unknown;
  structuredContent: Record<string, unknown>;
  content: TextContent[];
}

const size = (value: unknown) => JSON.stringify(value).length;

function cutStrings(value: unknown, max: number, hint: string): unknown {
  if (typeof value === 'string') return value.length > max ? truncateText(value, max, hint) : value;
  if (Array.isArray(value)) return value.map((v) => cutStrings(v, max, hint));
  if (value && typeof value === 'object') {
    return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, cutStrings(v, max, hint)]));
  }
  return value;
}

/** The largest page size (at most `kept`) with a page starting exactly at item `offset`, so paging can resume. */
function resumablePageSize(offset: number, kept: number): number {
  for (let n = Math.max(1, kept); n > 1; n--) if (offset % n === 0) return n;
  return 1;
}

/** The longest array anywhere in the value, by its JSON size, with a setter to shorten it. */
function largestArray(
  value: unknown,
  path = '',
): { path: string; items: unknown[]; set: (items: unknown[]) => void } | null {
  let best: { path: string; items: unknown[]; set: (items: unknown[]) => void; size: number } | null = null;
  const visit = (node: unknown, at: string, set: (items: unknown[]) => void) => {
    if (Array.isArray(node)) {
      const s = size(node);
      if (node.length > 1 && (!best || s > best.size)) best = { path: at, items: node, set, size: s };
      node.forEach((child, i) => {
        visit(child, `${at}[${i}]`, (items) => {
          node[i] = items;
        });
      });
    } else if (node && typeof node === 'object') {
      const record = node as Record<string, unknown>;
      for (const [k, child] of Object.entries(record)) {
        visit(child, at ? `${at}.${k}` : k, (items) => {
          record[k] = items;
        });
      }
    }
  };
  visit(value, path, () => {});
  return best;
}

/** The largest n (0..items.length) for which `fits(n)` holds, assuming it holds for every smaller n. */
function largestFitting(count: number, fits: (n: number) => boolean): number {
  let lo = 0;
  let hi = count;
  while (lo < hi) {
    const mid = Math.ceil((lo + hi) / 2);
    if (fits(mid)) lo = mid;
    else hi = mid - 1;
  }
  return lo;
}

/** What a cut result says in its structured content, so that a client paging from it skips nothing. */
export interface Truncation {
  /** Items of the cut list that are in this answer. */
  returned: number;
  /** Items of that list left out of this answer. */
  omitted: number;
  /** The page and per_page that continue exactly at the first item left out; null when the tool cannot page. */
  next: { page: number; per_page: number } | null;
  /** What was cut and how to read the rest, naming only parameters the tool has. */
  advice: string;
}

/** The tool a result belongs to: its name and the names of its input parameters. */
export interface ResultSource {
  name: string;
  params: readonly string[];
}

/**
 * Wraps a tool's result for MCP, first making sure its JSON is at most `max` characters: the longest
 * text fields are cut with a marker, then trailing `results` items are dropped (with `has_more: true`),
 * and as a last resort the longest other array is shortened. When anything was cut, `truncated` in the
 * structured content and a second text block tell the model what was left out and how to ask for it.
 */
export function boundResult(
  structured: Record<string, unknown>,
  tool: ResultSource,
  max: number = MAX_RESULT_CHARS,
): BoundedResult {
  const wrap = (value: Record<string, unknown>, notice?: string): BoundedResult => ({
    structuredContent: value,
    content: [
      { type: 'text', text: JSON.stringify(value) },
      ...(notice ? [{ type: 'text' as const, text: notice }] : []),
    ],
  });
  // The common case serialises once: the text that fits is the text sent.
  const whole = JSON.stringify(structured);
  if (whole.length <= max) return { structuredContent: structured, content: [{ type: 'text', text: whole }] };

  const toolName = tool.name;
  const pages = tool.params.includes('page') && tool.params.includes('per_page');
  const notices: string[] = [];
  const hint = pages
    ? `call ${toolName} with a smaller per_page to read the full text`
    : 'the full text does not fit in one answer';
  let value = structured;
  for (const limit of STRING_LIMITS) {
    value = cutStrings(structured, limit, hint) as Record<string, unknown>;
    if (size(value) <= max) break;
  }
  if (size(value) !== size(structured)) notices.push('Long text fields were cut; each cut is marked.');
  let truncation: Omit<Truncation, 'advice'> | null = null;
  // Room for the `truncated` field and the notice beside the JSON, which says the same: the model reads both.
  const room = max - 1_000;

  const results = value.results;
  if (size(value) > room && Array.isArray(results)) {
    const keep = largestFitting(
      results.length,
      (n) => size({ ...value, results: results.slice(0, n) }) <= room,
    );
    value = { ...value, results: results.slice(0, keep) };
    // Only list results carry has_more; adding it elsewhere would break their output schema.
    if ('has_more' in value) value.has_more = true;
    const page = typeof value.page === 'number' ? value.page : 1;
    const perPage = typeof value.per_page === 'number' ? value.per_page : results.length;
    const next = (page - 1) * perPage + keep;
    const nextSize = resumablePageSize(next, keep);
    const nextPage = { page: next / nextSize + 1, per_page: nextSize };
    truncation = { returned: keep, omitted: results.length - keep, next: pages ? nextPage : null };
    notices.push(
      pages
        ? `Only the first ${keep} of the ${results.length} results of this page fit in one answer. ` +
            `Call ${toolName} again with per_page=${nextPage.per_page} and page=${nextPage.page} to continue ` +
            'with the next item, and keep that smaller per_page.'
        : `Only the first ${keep} of the ${results.length} results fit in one answer; narrow the request.`,
    );
  }

  if (size(value) > room) {
    // Work on a copy: the caller's object stays as it was.
    value = JSON.parse(JSON.stringify(value)) as Record<string, unknown>;
    for (let target = largestArray(value); target && size(value) > room; target = largestArray(value)) {
      const { items, set, path } = target;
      const keep = largestFitting(items.length - 1, (n) => {
        set(items.slice(0, n));
        return size(value) <= room;
      });
      set(items.slice(0, keep));
      truncation ??= { returned: keep, omitted: items.length - keep, next: null };
      notices.push(
        `Only the first ${keep} of the ${items.length} items of ${path} fit in one answer; narrow the request.`,
      );
    }
  }
  if (!truncation && notices.length > 0) {
    const count = Array.isArray(value.results) ? value.results.length : 0;
    truncation = { returned: count, omitted: 0, next: null };
  }
  const notice = `Result shortened to stay under about 25,000 tokens. ${notices.join(' ')}`;
  if (truncation) value = { ...value, truncated: { ...truncation, advice: notices.join(' ') } };
  return wrap(value, notice);
}
