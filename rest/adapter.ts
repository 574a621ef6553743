import type { Request, Response } from 'express';
import { z } from 'zod';
import type { ToolContext } from '../tools/context.ts';
import type { AnyTool, ToolRoute } from '../tools/define.ts';
import { InvalidInput, MissingParameter } from '../tools/errors.ts';
import { checkPermission, checkScope, runTool } from '../tools/run.ts';
import type { ListResult } from '../tools/schemas/page.ts';
import { MAX_PER_PAGE } from '../tools/schemas/page.ts';
import { toCsv } from './csv.ts';
import { type RouteResponse, serveIdempotent } from './idempotency.ts';
import { uploadedFileOf } from './upload.ts';

/** `page`: the v1 envelope; `plain`: the tool result as is; `results`: only its `results` array (beta reads). */
export type Envelope = NonNullable<ToolRoute['envelope']>;

/** One REST route: a tool's route declaration (tools/define.ts) with the tool it calls. */
export interface Route extends ToolRoute {
  tool: AnyTool;
  envelope: Envelope;
}

type FieldKind = 'number' | 'boolean' | 'array' | 'enumArray' | 'string' | 'other';

function unwrap(schema: z.ZodType): z.ZodType {
  let s = schema as unknown as { _zod: { def: { type: string; innerType?: z.ZodType; in?: z.ZodType } } };
  for (;;) {
    const def = s._zod.def;
    if (['optional', 'default', 'nullable', 'prefault', 'readonly'].includes(def.type) && def.innerType)
      s = def.innerType as unknown as typeof s;
    // A transformed field is read from the query in the form it takes in (a list joined into the tool's text).
    else if (def.type === 'pipe' && def.in) s = def.in as unknown as typeof s;
    else return s as unknown as z.ZodType;
  }
}

function kindOf(schema: z.ZodType | undefined): FieldKind {
  if (!schema) return 'other';
  const type = (unwrap(schema) as unknown as { _zod: { def: { type: string } } })._zod.def.type;
  if (type === 'number' || type === 'int') return 'number';
  if (type === 'boolean') return 'boolean';
  if (type === 'array') {
    // A list of fixed words may also come as one comma-separated value (`status=a,b`): no word has a comma.
    const element = (unwrap(schema) as unknown as { _zod: { def: { element: z.ZodType } } })._zod.def.element;
    return kindOf(element) === 'string' &&
      (element as unknown as { _zod: { def: { type: string } } })._zod.def.type === 'enum'
      ? 'enumArray'
      : 'array';
  }
  if (type === 'string' || type === 'enum' || type === 'literal') return 'string';
  return 'other';
}

/** Query strings hold only strings: turn them into the types the tool's schema expects, in one place. */
/** The spellings a boolean query parameter accepts, in any case (Python's requests sends `True`). */
const queryBoolean = z.stringbool({ truthy: ['1', 'true'], falsy: ['0', 'false'], case: 'insensitive' });

/** What coerceQuery needs of a route, worked out on its first request rather than on every one. */
interface QueryShape {
  kinds: Map<string, FieldKind>;
  rename: Record<string, string>;
  toQueryName: (field: string) => string;
}

const queryShapes = new WeakMap<Route, QueryShape>();

function queryShapeOf(route: Route): QueryShape {
  let found = queryShapes.get(route);
  if (!found) {
    // A field the route takes in its own form is read from the query as that form says.
    const shape = { ...route.tool.input.shape, ...route.narrower } as Record<string, z.ZodType>;
    const rename = route.rename ?? {};
    const back = new Map(Object.entries(rename).map(([q, f]) => [f, q]));
    found = {
      kinds: new Map(Object.entries(shape).map(([field, schema]) => [field, kindOf(schema)])),
      rename,
      toQueryName: (field) => back.get(field) ?? field,
    };
    queryShapes.set(route, found);
  }
  return found;
}

export function coerceQuery(
  route: Route,
  query: Record<string, unknown>,
): { input: Record<string, unknown>; toQueryName: (field: string) => string } {
  const { kinds, rename, toQueryName } = queryShapeOf(route);
  const input: Record<string, unknown> = {};
  const values = new Map<string, string[]>();
  for (const [rawKey, rawValue] of Object.entries(query)) {
    const key = rawKey.endsWith('[]') ? rawKey.slice(0, -2) : rawKey;
    const list = Array.isArray(rawValue) ? rawValue.map(String) : [String(rawValue)];
    values.set(key, [...(values.get(key) ?? []), ...list]);
  }
  for (const [queryName, list] of values) {
    const field = rename[queryName] ?? rename[`${queryName}[]`] ?? queryName;
    const kind = kinds.get(field);
    if (kind === undefined) continue; // unknown query parameters are ignored
    if (kind === 'array') {
      input[field] = list;
      continue;
    }
    if (kind === 'enumArray') {
      input[field] = list.flatMap((v) => v.split(',').map((word) => word.trim()));
      continue;
    }
    if (list.length > 1) throw InvalidInput.field(queryName, 'must be given once');
    const value = list[0]!;
    if (kind === 'number') {
      if (!/^-?\d+$/.test(value.trim())) throw InvalidInput.field(queryName, 'must be an integer');
      let n = Number(value);
      if (field === 'per_page' && n > MAX_PER_PAGE) n = MAX_PER_PAGE;
      input[field] = n;
    } else if (kind === 'boolean') {
      const flag = queryBoolean.safeParse(value);
      if (!flag.success) throw InvalidInput.field(queryName, 'must be 1 or 0 (true or false)');
      input[field] = flag.data;
    } else {
      input[field] = value;
    }
  }
  return { input, toQueryName };
}

function pageUrl(publicUrl: string, req: Request, pageParam: string, page: number): string {
  const url = new URL(req.originalUrl, 'http://local');
  url.searchParams.set(pageParam, String(page));
  return `${publicUrl}${url.pathname}${url.search}`;
}

/** The v1 pagination envelope: absolute next/previous links that keep every other parameter. */
export function envelope<T>(publicUrl: string, req: Request, result: ListResult<T>) {
  return {
    count: result.count,
    next: result.has_more ? pageUrl(publicUrl, req, 'page', result.page + 1) : null,
    previous: result.page > 1 ? pageUrl(publicUrl, req, 'page', result.page - 1) : null,
    results: result.results,
  };
}

/** Lists answer CSV for `format=csv` or an Accept header that prefers text/csv. */
function wantsCsv(req: Request, query: Record<string, unknown>): boolean {
  const format = query.format;
  if (format !== undefined) {
    if (format === 'csv') return true;
    if (format === 'json') return false;
    throw InvalidInput.field('format', 'must be json or csv');
  }
  // A client that lists text/csv first wants CSV; browsers and JSON clients never do.
  return req.get('Accept')?.split(',')[0]?.trim().toLowerCase().startsWith('text/csv') === true;
}

/** Runs a route's tool for one request and writes the response. */
export async function serveRoute(route: Route, ctx: ToolContext, req: Request, res: Response): Promise<void> {
  if (route.method !== 'GET') {
    await serveIdempotent(ctx, req, res, (trxCtx) => writeResponse(route, trxCtx, req));
    return;
  }
  // Express parses the query string again at every read of req.query.
  const query = req.query as Record<string, unknown>;
  const csv = route.envelope === 'page' && wantsCsv(req, query);
  const { input, toQueryName } = routeInput(route, req, query);
  const result = await runTool(route.tool, ctx, input, toQueryName, { route });
  if (csv) {
    const list = result as ListResult<Record<string, unknown>>;
    const rows = route.mcpOnly
      ? (withoutFields(list as unknown as Record<string, unknown>, route.mcpOnly)
          .results as typeof list.results)
      : list.results;
    res.status(200).type('text/csv; charset=utf-8').send(toCsv(rows));
    return;
  }
  sendJson(res, route.status ?? 200, payload(route, ctx, req, result));
}

/**
 * A JSON answer written directly: what express's res.json writes for a body (ETags are off), without
 * its content negotiation and freshness checks, which a read's answer never needs. The body goes out as
 * bytes: node then writes the headers and the body side by side, where a string body is first joined to
 * the headers' text and copied again whole.
 */
function sendJson(res: Response, status: number, body: unknown): void {
  const json = Buffer.from(JSON.stringify(body));
  res.statusCode = status;
  res.setHeader('Content-Type', 'application/json; charset=utf-8');
  res.setHeader('Content-Length', json.length);
  res.end(res.req.method === 'HEAD' ? undefined : json);
}

/** The tool input of one request: the query, then the body, then the path parameters (which win). */
function routeInput(route: Route, req: Request, query = req.query as Record<string, unknown>) {
  const { input, toQueryName } = coerceQuery(route, { ...query });
  if (route.body === 'merge') {
    // No body, or JSON null, is no input; anything but an object cannot be merged into one.
    const body: unknown = req.body;
    if (body !== undefined && body !== null && (typeof body !== 'object' || Array.isArray(body))) {
      throw InvalidInput.field('body', 'must be a JSON object');
    }
    // Defined, not assigned: no key of the body can reach the prototype of the input.
    for (const [key, value] of Object.entries(body ?? {}))
      Object.defineProperty(input, key, { value, enumerable: true, writable: true, configurable: true });
  } else if (route.body) input[route.body.field] = req.body;
  if (route.upload) {
    const { [route.upload.field]: _fingerprint, ...fields } = (req.body ?? {}) as Record<string, unknown>;
    Object.assign(input, coerceQuery(route, fields).input);
    const file = uploadedFileOf(req);
    if (file) input[route.upload.field] = file;
  }
  for (const [name, value] of Object.entries(req.params)) input[route.rename?.[name] ?? name] = value;
  for (const [name, value] of Object.entries(route.defaults ?? {}))
    if (input[name] === undefined) input[name] = value;
  requireOneOf(route, input, toQueryName);
  return { input, toQueryName };
}

function requireOneOf(route: Route, input: Record<string, unknown>, toQueryName: (field: string) => string) {
  const fields = route.requireOneOf;
  if (!fields?.length || fields.some((f) => input[f] !== undefined && input[f] !== '')) return;
  const [first, ...others] = fields.map(toQueryName);
  const alternatives = others.length ? ` (or give ${others.join(' or ')})` : '';
  throw new MissingParameter(`missing ${first}: give ${[first, ...others].join(' or ')}`, [
    { field: first!, message: `is required${alternatives}` },
  ]);
}

/**
 * The checks of an upload route that need not wait for its file: the tool's scope and permission on the
 * principal alone (before the body), then the tool's own `authorize` on the path parameters and the form
 * fields sent before the file, mapped as they will be for the tool.
 */
export async function authorizeUpload(
  route: Route,
  ctx: ToolContext,
  req: Request,
  soFar: { fields?: Record<string, string[]>; fileBytesAtLeast?: number },
): Promise<void> {
  if (!soFar.fields) {
    checkScope(route.tool, ctx.principal);
    checkPermission(route.tool, ctx);
  }
  const input = coerceQuery(route, soFar.fields ?? {}).input;
  for (const [name, value] of Object.entries(req.params)) input[route.rename?.[name] ?? name] = value;
  await route.upload?.authorize?.(ctx, { input, fileBytesAtLeast: soFar.fileBytesAtLeast });
}

/** A tool result in the route's envelope. */
function payload(route: Route, ctx: ToolContext, req: Request, raw: unknown): unknown {
  const result = route.mcpOnly ? withoutFields(raw as Record<string, unknown>, route.mcpOnly) : raw;
  if (route.envelope === 'page') {
    const page = envelope(ctx.publicUrl, req, result as ListResult<unknown>);
    const extra = (route.alongside ?? []).filter(
      (name) => (result as Record<string, unknown>)[name] !== undefined,
    );
    return extra.length === 0
      ? page
      : {
          ...page,
          ...Object.fromEntries(extra.map((name) => [name, (result as Record<string, unknown>)[name]])),
        };
  }
  return route.envelope === 'results' ? (result as { results: unknown[] }).results : result;
}

/** A list result whose rows leave out `fields`. */
function withoutFields(result: Record<string, unknown>, fields: readonly string[]): Record<string, unknown> {
  const rows = result.results as Record<string, unknown>[];
  const kept = rows.map((row) =>
    Object.fromEntries(Object.entries(row).filter(([k]) => !fields.includes(k))),
  );
  return { ...result, results: kept };
}

/** Non-GET routes: the response is computed first, so rest/idempotency.ts can store and replay it. */
async function writeResponse(route: Route, ctx: ToolContext, req: Request): Promise<RouteResponse> {
  const { input, toQueryName } = routeInput(route, req);
  const result = await runTool(route.tool, ctx, input, toQueryName, { route });
  return { status: route.status ?? 200, body: payload(route, ctx, req, result) };
}
