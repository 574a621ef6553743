// The concise form of a read tool's result, MCP's default: the figures a model reasons with, without
// the bookkeeping (audit timestamps, sources, flags) and without constants repeated on every row.
import { z } from 'zod';
import type { AnyTool } from './define.ts';
import { InvalidInput } from './errors.ts';

export const RESPONSE_FORMATS = ['concise', 'detailed'] as const;
export type ResponseFormat = (typeof RESPONSE_FORMATS)[number];

// Listed on every read tool, so listed bare (concise when left out): the server's instructions explain it once.
const responseFormat = z.enum(RESPONSE_FORMATS).default('concise');
const listedFormat = z.enum(RESPONSE_FORMATS).optional();

/** True for the tools that take `response_format` over MCP: every read. */
export const hasResponseFormat = (tool: Pick<AnyTool, 'annotations'>) => tool.annotations.readOnlyHint;

const inputs = new WeakMap<AnyTool, z.ZodObject>();

/** The input schema MCP lists: the tool's own, plus `response_format` on a read. */
export function mcpInput(tool: AnyTool): z.ZodObject {
  if (!hasResponseFormat(tool)) return tool.input;
  let found = inputs.get(tool);
  if (!found) {
    found = tool.input.extend({ response_format: listedFormat });
    inputs.set(tool, found);
  }
  return found;
}

/** Takes `response_format` out of an MCP call's arguments (REST never sends it: it always gets the detailed form). */
export function splitFormat(
  tool: AnyTool,
  args: Record<string, unknown>,
): { format: ResponseFormat; args: Record<string, unknown> } {
  if (!hasResponseFormat(tool)) return { format: 'detailed', args };
  const { response_format: raw, ...rest } = args;
  const parsed = responseFormat.safeParse(raw);
  if (!parsed.success) throw InvalidInput.field('response_format', 'must be concise or detailed');
  return { format: parsed.data, args: rest };
}

/**
 * The output schema MCP lists: the detailed result's fields, plus the fields only the concise form
 * has, all optional, so a result in either format validates against it.
 */
export function mcpOutput(tool: AnyTool): z.ZodType {
  if (!hasResponseFormat(tool) || !(tool.output instanceof z.ZodObject)) return tool.output;
  const detailed = tool.output as z.ZodObject;
  const concise = tool.conciseOutput ?? (listShape(detailed) ? conciseList : undefined);
  if (!concise) return detailed;
  const extra = Object.entries(concise.shape).filter(([name]) => !(name in detailed.shape));
  return detailed.extend(Object.fromEntries(extra.map(([name, field]) => [name, field.optional()])));
}

/** The result in the format asked for. */
export function present(
  tool: AnyTool,
  result: Record<string, unknown>,
  input: Record<string, unknown>,
  format: ResponseFormat,
): Record<string, unknown> {
  if (format === 'detailed' || !hasResponseFormat(tool)) return result;
  if (!tool.concise) return conciseDefault(result);
  // The hook sees the input as the handler did, defaults filled in.
  const parsed = tool.input.safeParse(input);
  return tool.concise(result, parsed.success ? parsed.data : input);
}

/** Fields that record how a row was kept, not what it says. */
const BOOKKEEPING = new Set([
  'updated_at',
  'deleted_at',
  'detailed_source',
  'archived',
  'is_budget_metric',
  'category_id',
]);

/** Fields that, when one value throughout, are stated once at the top. */
const HOISTED = ['preferred_currency', 'converted_currency', 'as_of_date'] as const;

type Json = Record<string, unknown>;
const isRecord = (v: unknown): v is Json => typeof v === 'object' && v !== null && !Array.isArray(v);

/** A copy without bookkeeping fields and, where `hoist` lists them, without the fields stated at the top. */
function strip(value: unknown, hoist: ReadonlySet<string>, depth = 0): unknown {
  if (Array.isArray(value)) return value.map((v) => strip(v, hoist, depth + 1));
  if (!isRecord(value)) return value;
  const out: Json = {};
  for (const [key, field] of Object.entries(value)) {
    if (BOOKKEEPING.has(key)) continue;
    if (depth > 0 && hoist.has(key)) continue;
    out[key] = strip(field, hoist, depth + 1);
  }
  return out;
}

/** Every value `key` takes anywhere below the top of `value`. */
function valuesOf(value: unknown, key: string, found = new Set<string>(), depth = 0): Set<string> {
  if (Array.isArray(value)) for (const v of value) valuesOf(v, key, found, depth + 1);
  else if (isRecord(value))
    for (const [k, v] of Object.entries(value)) {
      if (k === key && depth > 0) found.add(JSON.stringify(v));
      else valuesOf(v, key, found, depth + 1);
    }
  return found;
}

/**
 * The default concise form: bookkeeping fields dropped everywhere; in a list, the fields every result
 * shares (and a currency or date that is one value throughout) stated once in `same_in_every_result`;
 * elsewhere such a value is left out below the top where the top already states it.
 */
export function conciseDefault(result: Json): Json {
  const list = Array.isArray(result.results) && 'has_more' in result;
  const hoist = new Map<string, unknown>();
  for (const key of HOISTED) {
    const seen = valuesOf(result, key);
    if (seen.size !== 1) continue;
    const only = JSON.parse([...seen][0]!) as unknown;
    if (list ? result[key] === undefined : JSON.stringify(result[key]) === JSON.stringify(only))
      hoist.set(key, only);
  }
  const out = strip(result, new Set(hoist.keys())) as Json;
  if (!list) return out;
  const rows = out.results as unknown[];
  const same: Json = {};
  if (rows.length > 1 && rows.every(isRecord)) {
    for (const [key, value] of Object.entries(rows[0] as Json)) {
      if (isRecord(value) || Array.isArray(value)) continue;
      if (rows.every((row) => (row as Json)[key] === value)) same[key] = value;
    }
    out.results = rows.map((row) =>
      Object.fromEntries(Object.entries(row as Json).filter(([key]) => !(key in same))),
    );
  }
  for (const [key, value] of hoist) same[key] = value;
  if (Object.keys(same).length > 0) out.same_in_every_result = same;
  return out;
}

/** A list result has the paging fields and `results`. */
function listShape(schema: z.ZodObject): boolean {
  return 'results' in schema.shape && 'has_more' in schema.shape;
}

const conciseList = z.object({ same_in_every_result: z.object({}) });

/** Rows of like objects as one table: the field names once, then one array of values per row. */
export const Table = z.object({ columns: z.array(z.string()), rows: z.array(z.array(z.unknown())) });
export type Table = z.infer<typeof Table>;

export function toTable<T extends object>(
  items: readonly T[],
  columns: readonly (keyof T & string)[],
): Table {
  return { columns: [...columns], rows: items.map((item) => columns.map((c) => item[c])) };
}
