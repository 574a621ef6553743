import { expect } from 'chai';
import fc from 'fast-check';
import { z } from 'zod';
import { mcpTools } from '../mcp/server.ts';
import type { Route } from '../rest/adapter.ts';
import { routes } from '../rest/routes.ts';
import type { RunningServer } from '../server/http.ts';
import type { AnyTool } from '../tools/define.ts';
import { dialects, type TestDb } from './helpers/db.ts';
import { api, EVERY_TOOLSET, startTestServer } from './helpers/server.ts';
import {
  baseInput,
  buildWorld,
  mcpCall,
  REFERENCE_FIELDS,
  restoreOwn,
  restRequest,
  type World,
  writeChecksum,
} from './helpers/world.ts';

// Property-based tests over every route of rest/routes.ts and every MCP tool: generated query strings,
// path ids, JSON bodies and tool arguments, valid, at the boundaries of the schemas and hostile. A fixed
// seed keeps CI repeatable; FUZZ_SEED picks another one and FUZZ_RUNS scales the number of inputs.
const SEED = Number(process.env.FUZZ_SEED ?? 20260601);
const READ_RUNS = Number(process.env.FUZZ_RUNS ?? 25);
/** Writes get more inputs: they are where a rejected request could leave something behind. */
const WRITE_RUNS = READ_RUNS * 2;

const MIB = 1 << 20;

/** Raw JSON text placed as is into a body (numbers JSON cannot round-trip, nesting too deep to build). */
class RawJson {
  constructor(
    readonly text: string,
    readonly label: string,
  ) {}
  [fc.toStringMethod](): string {
    return `RawJson(${this.label})`;
  }
}

/** A string of `size` characters, built only when sent (so a counterexample prints short). */
class Big {
  constructor(readonly size: number) {}
  get value(): string {
    return 'x'.repeat(this.size);
  }
  [fc.toStringMethod](): string {
    return `Big(${this.size})`;
  }
}

/** A query-string fragment sent without encoding (malformed percent-encoding, raw NUL). */
class RawQuery {
  constructor(readonly text: string) {}
  [fc.toStringMethod](): string {
    return `RawQuery(${this.text})`;
  }
}

function jsonText(value: unknown): string {
  if (value instanceof RawJson) return value.text;
  if (value instanceof Big) return JSON.stringify(value.value);
  if (Array.isArray(value)) return `[${value.map(jsonText).join(',')}]`;
  if (value && typeof value === 'object') {
    const entries = Object.entries(value).filter(([, v]) => v !== undefined);
    return `{${entries.map(([k, v]) => `${JSON.stringify(k)}:${jsonText(v)}`).join(',')}}`;
  }
  return JSON.stringify(value) ?? 'null';
}

/** Whether a generated value carries a 1 MiB string somewhere. */
function carriesMib(value: unknown): boolean {
  if (value instanceof Big) return value.size >= MIB;
  if (Array.isArray(value)) return value.some(carriesMib);
  if (value && typeof value === 'object' && !(value instanceof RawJson))
    return Object.values(value).some(carriesMib);
  return false;
}

const HOSTILE_STRINGS = [
  '',
  ' ',
  '0',
  '-1',
  '1.5',
  '1e3',
  '-0',
  '99999999999999999999999999',
  '-99999999999999999999',
  '9007199254740993',
  'NaN',
  'Infinity',
  'null',
  'true',
  'undefined',
  'a\u0000b',
  '\u0000',
  '\ud800',
  "' OR '1'='1",
  "'; DROP TABLE companies; --",
  '" OR 1=1 --',
  '%',
  '_',
  '\\',
  '%25',
  '*',
  '<script>alert(1)</script>',
  '"><img src=x onerror=alert(1)>',
  '=HYPERLINK("http://x")',
  '../../etc/passwd',
  '2026-02-30',
  '2026-13-01',
  '0000-00-00',
  '2026-1-1',
  '2026-01-01T25:00:00Z',
  '2026-01-01T00:00:00Z',
  '2026-01-01T00:00:00+14:00',
  '-created_at',
  '+created_at',
  ' created_at',
  'created_at',
  'custom',
  'revenue',
  'USD',
  'usd',
  'XXX',
  'PARI_PASSU',
  'CAPPED_PARTICIPATING',
  '🙂',
  '\u202e',
  'İ',
  'ß',
  'ﷺ',
  '\t\n',
  '__proto__',
  'constructor',
];

const hostileString: fc.Arbitrary<string | Big> = fc.oneof(
  { weight: 6, arbitrary: fc.constantFrom(...HOSTILE_STRINGS) },
  { weight: 3, arbitrary: fc.string({ unit: 'grapheme', maxLength: 24 }) },
  { weight: 1, arbitrary: fc.string({ unit: 'binary', maxLength: 12 }) },
  { weight: 1, arbitrary: fc.integer({ min: 256, max: 6000 }).map((n) => new Big(n)) },
);

/** 1 MiB strings are rare (1 input in 40): a few per suite show the size limits answer properly. */
function rarelyMib<T>(arb: fc.Arbitrary<T>, mib: fc.Arbitrary<T>): fc.Arbitrary<T> {
  return fc.oneof({ weight: 39, arbitrary: arb }, { weight: 1, arbitrary: mib });
}

function nested(depth: number, kind: 'array' | 'object'): RawJson {
  const text =
    kind === 'array'
      ? `${'['.repeat(depth)}${']'.repeat(depth)}`
      : `${'{"a":'.repeat(depth)}1${'}'.repeat(depth)}`;
  return new RawJson(text, `${kind} nested ${depth} deep`);
}

const deepJson = fc
  .tuple(
    fc.oneof(fc.integer({ min: 1, max: 80 }), fc.integer({ min: 80, max: 10_000 })),
    fc.constantFrom('array', 'object'),
  )
  .map(([depth, kind]) => nested(depth, kind as 'array' | 'object'));

const hugeNumber = fc.constantFrom(
  new RawJson('1e400', '1e400'),
  new RawJson('-1e400', '-1e400'),
  new RawJson('1e-400', '1e-400'),
  new RawJson('123456789012345678901234567890', '30-digit integer'),
  new RawJson('-0', '-0'),
  new RawJson('0.1e1', '0.1e1'),
  new RawJson('9007199254740993', '2^53+1'),
);

/** Any JSON value a hostile client could put where the schema wants something else. */
const hostileJson: fc.Arbitrary<unknown> = fc.oneof(
  { weight: 2, arbitrary: fc.constant(null) },
  { weight: 1, arbitrary: fc.boolean() },
  { weight: 1, arbitrary: fc.constantFrom([], {}) },
  { weight: 2, arbitrary: fc.integer() },
  { weight: 1, arbitrary: fc.double() },
  { weight: 2, arbitrary: hugeNumber },
  { weight: 4, arbitrary: hostileString },
  { weight: 2, arbitrary: deepJson },
  { weight: 2, arbitrary: fc.array(hostileString, { maxLength: 3 }) },
  { weight: 2, arbitrary: fc.jsonValue({ maxDepth: 3 }) },
);

type JsonSchema = {
  $ref?: string;
  type?: string | string[];
  enum?: unknown[];
  const?: unknown;
  anyOf?: JsonSchema[];
  oneOf?: JsonSchema[];
  allOf?: JsonSchema[];
  format?: string;
  minLength?: number;
  maxLength?: number;
  minimum?: number;
  maximum?: number;
  minItems?: number;
  maxItems?: number;
  items?: JsonSchema;
  properties?: Record<string, JsonSchema>;
  required?: string[];
  $defs?: Record<string, JsonSchema>;
};

/** Known ids and names for a field, from every side: the caller's own, a hidden company's, another firm's. */
function knownValues(field: string, w: World): unknown[] {
  return (REFERENCE_FIELDS[field] ?? []).flatMap((ref) =>
    [w.own, w.hidden, w.foreign].map((s) => ref.value(s, w.own)),
  );
}

const dateArb = fc
  .date({ min: new Date('1900-01-01T00:00:00Z'), max: new Date('2100-12-31T00:00:00Z'), noInvalidDate: true })
  .map((d) => d.toISOString().slice(0, 10));

/** Values the schema accepts, biased to the edges it declares (max length, max items and one past them). */
function fromSchema(
  schema: JsonSchema,
  root: JsonSchema,
  w: World,
  field: string,
  depth = 0,
): fc.Arbitrary<unknown> {
  if (schema.$ref) {
    const name = schema.$ref.split('/').pop()!;
    return fromSchema(root.$defs?.[name] ?? {}, root, w, field, depth);
  }
  const known = depth === 0 || field.endsWith('_id') ? knownValues(field, w) : [];
  const withKnown = (arb: fc.Arbitrary<unknown>) =>
    known.length > 0
      ? fc.oneof({ weight: 2, arbitrary: fc.constantFrom(...known) }, { weight: 1, arbitrary: arb })
      : arb;
  const choices = schema.anyOf ?? schema.oneOf;
  if (choices) return withKnown(fc.oneof(...choices.map((c) => fromSchema(c, root, w, field, depth))));
  if (schema.allOf?.[0]) return fromSchema(schema.allOf[0], root, w, field, depth);
  if (schema.enum) return fc.constantFrom(...schema.enum);
  if (schema.const !== undefined) return fc.constant(schema.const);
  if (Array.isArray(schema.type)) {
    return fc.oneof(...schema.type.map((type) => fromSchema({ ...schema, type }, root, w, field, depth)));
  }
  switch (schema.type) {
    case 'string': {
      if (schema.format === 'date') return dateArb;
      if (schema.format === 'date-time') return dateArb.map((d) => `${d}T12:00:00Z`);
      const min = schema.minLength ?? 0;
      const max = schema.maxLength;
      const edges = max === undefined ? [] : [new Big(max), new Big(max + 1)];
      return withKnown(
        fc.oneof(
          {
            weight: 4,
            arbitrary: fc.string({
              unit: 'grapheme',
              minLength: Math.max(min, 1),
              maxLength: Math.min(max ?? 20, 20),
            }),
          },
          { weight: 1, arbitrary: edges.length ? fc.constantFrom(...edges) : fc.constant('') },
        ),
      );
    }
    case 'integer':
    case 'number': {
      const min = schema.minimum ?? -1_000_000;
      const max = Math.min(schema.maximum ?? 1_000_000, 1_000_000_000);
      const edges = [min, max, min - 1, max + 1].filter(Number.isSafeInteger);
      const inner =
        schema.type === 'integer' ? fc.integer({ min, max }) : fc.double({ min, max, noNaN: true });
      return fc.oneof({ weight: 3, arbitrary: inner }, { weight: 1, arbitrary: fc.constantFrom(...edges) });
    }
    case 'boolean':
      return fc.boolean();
    case 'array': {
      const item = fromSchema(schema.items ?? {}, root, w, field, depth + 1);
      const minLength = schema.minItems ?? 0;
      const maxLength = Math.min(schema.maxItems ?? 4, 4);
      const arrays: fc.Arbitrary<unknown>[] = [
        fc.array(item, { minLength, maxLength: Math.max(minLength, maxLength) }),
      ];
      if (schema.maxItems !== undefined && schema.maxItems <= 200) {
        arrays.push(fc.array(item, { minLength: schema.maxItems, maxLength: schema.maxItems }));
        arrays.push(fc.array(item, { minLength: schema.maxItems + 1, maxLength: schema.maxItems + 1 }));
      }
      return withKnown(
        fc.oneof(
          { weight: 6, arbitrary: arrays[0]! },
          ...arrays.slice(1).map((a) => ({ weight: 1, arbitrary: a })),
        ),
      );
    }
    case 'object': {
      if (depth > 6 || !schema.properties)
        return fc.dictionary(fc.string({ maxLength: 6 }), fc.jsonValue({ maxDepth: 1 }), { maxKeys: 2 });
      const props = Object.fromEntries(
        Object.entries(schema.properties).map(([name, sub]) => [
          name,
          fromSchema(sub, root, w, name, depth + 1),
        ]),
      );
      return fc.record(props, { requiredKeys: schema.required ?? [] });
    }
    default:
      return fc.jsonValue({ maxDepth: 2 });
  }
}

type Path = (string | number)[];

function pathsOf(value: unknown, prefix: Path = [], out: Path[] = []): Path[] {
  out.push(prefix);
  if (Array.isArray(value)) {
    for (const [i, v] of value.entries()) pathsOf(v, [...prefix, i], out);
  } else if (value && typeof value === 'object' && !(value instanceof RawJson) && !(value instanceof Big)) {
    for (const [k, v] of Object.entries(value)) pathsOf(v, [...prefix, k], out);
  }
  return out;
}

function replaceAt(value: unknown, path: Path, replacement: unknown): unknown {
  if (path.length === 0) return replacement;
  const [head, ...rest] = path;
  if (Array.isArray(value)) return value.map((v, i) => (i === head ? replaceAt(v, rest, replacement) : v));
  const obj = value as Record<string, unknown>;
  return { ...obj, [head as string]: replaceAt(obj[head as string], rest, replacement) };
}

/** Tool input objects: valid ones, ones with a hostile value somewhere inside, and not objects at all. */
function inputArb(tool: AnyTool, w: World): fc.Arbitrary<unknown> {
  const schema = z.toJSONSchema(tool.input, { io: 'input', unrepresentable: 'any' }) as JsonSchema;
  const valid = fromSchema(schema, schema, w, '');
  const fieldNames = [...Object.keys(tool.input.shape), 'unknown_field', '__proto__'];
  const base = fc.constant(null).map(() => baseInput(tool, w.own));
  const mutated = fc
    .tuple(fc.oneof(valid, base), hostileJson, fc.nat(), fc.boolean(), fc.constantFrom(...fieldNames))
    .map(([value, hostile, pick, topLevel, name]) => {
      if (topLevel && value && typeof value === 'object') return { ...(value as object), [name]: hostile };
      const paths = pathsOf(value).slice(1);
      return paths.length ? replaceAt(value, paths[pick % paths.length]!, hostile) : hostile;
    });
  return rarelyMib(
    fc.oneof(
      { weight: 3, arbitrary: valid },
      { weight: 1, arbitrary: base },
      { weight: 5, arbitrary: mutated },
      { weight: 1, arbitrary: hostileJson },
    ),
    fc.constantFrom(...fieldNames).map((name) => ({ [name]: new Big(MIB) })),
  );
}

/** Query parameters: the route's known names (and `[]` forms, unknown ones) with hostile values. */
function queryArb(route: Route, tool: AnyTool, w: World): fc.Arbitrary<[string, unknown][]> {
  const back = new Map(Object.entries(route.rename ?? {}).map(([q, f]) => [f, q]));
  const pathParams = [...route.path.matchAll(/:(\w+)/g)].map((m) => m[1]!);
  const names = Object.keys(tool.input.shape)
    .filter((f) => !pathParams.includes(f))
    .map((f) => back.get(f) ?? f);
  const allNames = [...names, ...names.map((n) => `${n}[]`), 'format', 'page_size', 'page', 'zzz'];
  const value = fc.oneof(
    { weight: 8, arbitrary: hostileString },
    {
      weight: 3,
      arbitrary: fc.constantFrom(
        ...knownValues('company_id', w),
        ...knownValues('datum_id', w),
        '1',
        '0',
        'true',
        'false',
        'csv',
        'json',
      ),
    },
    {
      weight: 2,
      arbitrary: fc
        .constantFrom('%00', '%', '%ZZ', '%E0%A4%A', '%2F', '%26', '+', '%2B', 'a%20b', '%C0%AF')
        .map((s) => new RawQuery(s)),
    },
  );
  const pair = fc.tuple(fc.constantFrom(...allNames), value);
  const pairs = fc.tuple(fc.array(pair, { maxLength: 6 }), fc.boolean()).map(([list, repeat]) =>
    // A repeated key: an array where a single value belongs.
    repeat && list[0] ? [...list, [list[0][0], list[0][1]] as [string, unknown]] : list,
  );
  return rarelyMib(
    pairs,
    fc.constantFrom(...allNames).map((name) => [[name, new Big(MIB)]] as [string, unknown][]),
  );
}

/** encodeURIComponent, except that a lone surrogate goes out as the invalid UTF-8 bytes of one. */
function encodeText(text: string): string {
  return text.replace(/[\s\S]/gu, (ch) =>
    /^[\uD800-\uDFFF]$/.test(ch) ? '%ED%A0%80' : encodeURIComponent(ch),
  );
}

function encodeQuery(pairs: [string, unknown][]): string {
  return pairs
    .map(([name, v]) => {
      const text = v instanceof RawQuery ? v.text : encodeText(v instanceof Big ? v.value : String(v));
      return `${encodeText(name).replace(/%5B%5D$/, '[]')}=${text}`;
    })
    .join('&');
}

const pathIdArb = (w: World) =>
  fc.oneof(
    {
      weight: 3,
      arbitrary: fc.constantFrom(
        w.own.company,
        w.own.datum,
        w.hidden.company,
        w.hidden.datum,
        w.foreign.company,
        w.foreign.datum,
      ),
    },
    { weight: 4, arbitrary: hostileString.map((s) => encodeText(s instanceof Big ? s.value : s)) },
    { weight: 2, arbitrary: fc.constantFrom('%E0%A4%A', '%ZZ', '%00', '..', '%2E%2E', '%2F', 'a%2Fb') },
  );

const CONTENT_TYPES = [
  'application/json',
  'application/json; charset=utf-8',
  'application/json; charset=latin1',
  'application/merge-patch+json',
  'text/plain',
  'application/x-www-form-urlencoded',
];

const headerValue = fc.oneof(
  fc.constantFrom('probe-key', 'probe-key-2', '', ' ', 'k'.repeat(256)),
  fc.string({ unit: 'binary-ascii', maxLength: 40 }).filter((s) => /^[\x20-\x7e]*$/.test(s)),
);

/** A multipart/form-data body for an upload route: text fields and at most one file part, each in any field. */
class Multipart {
  constructor(
    readonly fields: [string, string | Big][],
    readonly file: { field: string; filename: string; content: Uint8Array } | null,
  ) {}
  form(): FormData {
    const form = new FormData();
    for (const [name, value] of this.fields) form.append(name, value instanceof Big ? value.value : value);
    if (this.file) {
      form.append(this.file.field, new Blob([new Uint8Array(this.file.content)]), this.file.filename);
    }
    return form;
  }
  [fc.toStringMethod](): string {
    const file =
      this.file &&
      `${this.file.field}=${JSON.stringify(this.file.filename)} (${this.file.content.length} bytes)`;
    return `Multipart(${this.fields.map(([n]) => n).join(',')}${file ? ` ${file}` : ''})`;
  }
}

/** The starts of files of every accepted format, of some that are not, and nothing at all. */
const FILE_STARTS = [
  '%PDF-1.4\n',
  '\x89PNG\r\n\x1a\n',
  '\xff\xd8\xff',
  'PK\x03\x04',
  'GIF89a',
  'RIFF\0\0\0\0WEBP',
  'MZ',
  '<svg xmlns="http://www.w3.org/2000/svg">',
  '',
];
const FILENAMES = [
  'deck.pdf',
  'logo.png',
  'LOGO.JPG',
  'plan.docx',
  'model.xlsx',
  'photo.webp',
  'anim.gif',
  'setup.exe',
  'noextension',
  '.png',
  '',
  '../../etc/passwd.png',
  'C:\\dir\\a.pdf',
  'ü \u2028 name.jpeg',
  'nul\u0000.png',
  `${'n'.repeat(300)}.png`,
];

function multipartArb(route: Route, tool: AnyTool, w: World): fc.Arbitrary<Multipart> {
  const fileField = route.upload!.field;
  const names = [...Object.keys(tool.input.shape), 'unknown_field', '__proto__'];
  const textNames = fc.oneof(
    { weight: 6, arbitrary: fc.constantFrom(...names.filter((n) => n !== fileField)) },
    { weight: 1, arbitrary: fc.constant(fileField) },
  );
  // A name and content of one format, so a good share of the files get past the type check.
  const matched = fc
    .constantFrom(
      ['deck.pdf', '%PDF-1.4\n'],
      ['logo.png', '\x89PNG\r\n\x1a\n'],
      ['photo.JPEG', '\xff\xd8\xff'],
      ['plan.docx', 'PK\x03\x04'],
      ['anim.gif', 'GIF87a'],
      ['pic.webp', 'RIFF\0\0\0\0WEBP'],
    )
    .chain(([filename, start]) =>
      fc.uint8Array({ minLength: 1, maxLength: 64 }).map((rest) => ({
        field: fileField,
        filename,
        content: new Uint8Array([...Buffer.from(start, 'latin1'), ...rest]),
      })),
    );
  const fieldValue = fc.oneof(
    { weight: 3, arbitrary: fc.constantFrom(...knownValues('company_id', w).map(String)) },
    { weight: 4, arbitrary: hostileString },
  );
  const file = fc.record({
    field: fc.oneof(
      { weight: 5, arbitrary: fc.constant(fileField) },
      { weight: 1, arbitrary: fc.constantFrom(...names) },
    ),
    filename: fc.oneof(
      { weight: 4, arbitrary: fc.constantFrom(...FILENAMES) },
      { weight: 1, arbitrary: fc.string({ unit: 'grapheme', maxLength: 20 }).map((n) => `${n}.png`) },
    ),
    content: fc
      .tuple(fc.constantFrom(...FILE_STARTS), fc.uint8Array({ maxLength: 64 }))
      .map(([start, rest]) => new Uint8Array([...Buffer.from(start, 'latin1'), ...rest])),
  });
  return fc
    .tuple(
      fc.array(fc.tuple(textNames, fieldValue), { maxLength: 4 }),
      fc.option(fc.oneof(matched, file), { freq: 6 }),
    )
    .map(([fields, f]) => new Multipart(fields, f));
}

interface RestCase {
  pathIds: string[];
  query: [string, unknown][];
  base: boolean;
  body: unknown;
  contentType: string;
  idempotencyKey: string | null;
}

function restCaseArb(route: Route, w: World): fc.Arbitrary<RestCase> {
  const tool = route.tool as AnyTool;
  const pathParams = [...route.path.matchAll(/:(\w+)/g)].length;
  return fc.record({
    pathIds: fc.array(pathIdArb(w), { minLength: pathParams, maxLength: pathParams }),
    query: queryArb(route, tool, w),
    base: fc.boolean(),
    // A route's body is the tool input (the 1 MiB case is the body's, so the query stays small then).
    body:
      route.method === 'GET'
        ? fc.constant(undefined)
        : route.upload
          ? fc.oneof(
              { weight: 3, arbitrary: multipartArb(route, tool, w) },
              { weight: 1, arbitrary: inputArb(tool, w) },
            )
          : inputArb(tool, w),
    contentType: fc.oneof(
      { weight: 8, arbitrary: fc.constant(CONTENT_TYPES[0]!) },
      { weight: 3, arbitrary: fc.constantFrom(...CONTENT_TYPES) },
    ),
    idempotencyKey: route.method === 'GET' ? fc.constant(null) : fc.option(headerValue, { freq: 3 }),
  });
}

type Problemish = { status?: unknown; code?: unknown; detail?: unknown };

for (const dialect of dialects) {
  describe(`fuzzing every route and tool (${dialect.name}) @db`, function () {
    this.timeout(120_000);
    let t: TestDb;
    let w: World;
    let server: RunningServer;
    let baseline: string;
    const tried = { rest: 0, mcp: 0, mib: 0, rejectedWrites: 0 };

    /** After any request: nothing changed unless a write succeeded; then the new state is the baseline. */
    async function restoreOwnObjects(): Promise<void> {
      await restoreOwn(t.db, w);
      baseline = await writeChecksum(t.db);
    }

    async function checkWrites(wrote: boolean, describeInput: () => string): Promise<void> {
      const now = await writeChecksum(t.db);
      if (wrote) baseline = now;
      else
        expect(now, `a request that wrote nothing changed the data: ${describeInput()}`).to.equal(baseline);
    }

    before(async () => {
      t = await dialect.open();
      w = await buildWorld(t.db);
      server = await startTestServer(t.db, {
        env: { MCP_WRITE_TOOLS: 'true', MCP_TOOLSETS: EVERY_TOOLSET, RATE_LIMIT_PER_MINUTE: '1000000' },
      });
      baseline = await writeChecksum(t.db);
    });
    after(async () => {
      console.log(
        `      fuzz (${dialect.name}, seed ${SEED}): ${tried.rest + tried.mcp} inputs tried — ${tried.rest} REST requests ` +
          `over ${routes.length} routes, ${tried.mcp} MCP tool calls; ${tried.mib} carried a 1 MiB string; ` +
          `${tried.rejectedWrites} rejected writes checked for leftovers`,
      );
      await server?.close();
      await t?.drop();
    });

    routes.forEach((route, index) => {
      const tool = route.tool as AnyTool;
      const isWrite = route.method !== 'GET';
      const runs = tool.write ? WRITE_RUNS : READ_RUNS;
      it(`${route.method} ${route.path}: ${runs} generated requests never answer 5xx, every error is problem+json, a rejected request writes nothing`, async () => {
        await fc.assert(
          fc.asyncProperty(restCaseArb(route, w), async (c) => {
            tried.rest += 1;
            if (carriesMib(c.query) || carriesMib(c.body)) tried.mib += 1;
            let i = 0;
            const basePath = restRequest(route, baseInput(tool, w.own, route.requireOneOf)).path.split('?');
            const path = route.path.replace(/:(\w+)/g, () => c.pathIds[i++] ?? '');
            const baseQuery = c.base && basePath[1] ? `${basePath[1]}&` : '';
            const query = baseQuery + encodeQuery(c.query);
            const url = `${server.url}${path}${query ? `?${query}` : ''}`;
            const headers: Record<string, string> = { Authorization: `Bearer ${w.roles.admin.rest}` };
            let body: string | FormData | undefined;
            if (c.body instanceof Multipart) body = c.body.form();
            else if (isWrite && c.body !== undefined) {
              body = jsonText(c.body);
              headers['Content-Type'] = c.contentType;
            }
            if (c.idempotencyKey !== null) headers['Idempotency-Key'] = c.idempotencyKey;
            const res = await fetch(url, { method: route.method, headers, body });
            const text = await res.text();
            const describeInput = () =>
              `${route.method} ${url.slice(0, 300)} ${typeof body === 'string' ? body.slice(0, 300) : fc.stringify(c.body)} → ${res.status} ${text.slice(0, 300)}`;
            expect(res.status, describeInput()).to.be.below(500);
            const type = res.headers.get('content-type') ?? '';
            if (res.status >= 400) {
              expect(type, describeInput()).to.match(/^application\/problem\+json/);
              const problem = JSON.parse(text) as Problemish;
              expect(problem.status, describeInput()).to.equal(res.status);
              expect(problem.code, describeInput()).to.be.a('string').and.not.equal('internal');
              expect(problem.detail, describeInput()).to.be.a('string').that.is.not.empty;
              if (tool.write) tried.rejectedWrites += 1;
            } else {
              expect(type, describeInput()).to.match(/^(application\/json|text\/csv)/);
            }
            await checkWrites(tool.write === true && res.status < 300, describeInput);
          }),
          { numRuns: runs, seed: SEED + index },
        );
        // A valid request still works after all that (on the own objects, put back if a call deleted them).
        await restoreOwnObjects();
        const valid = restRequest(route, baseInput(tool, w.own, route.requireOneOf));
        const after = await api(server.url, valid.path, {
          token: w.roles.admin.rest,
          method: valid.method,
          body: valid.body,
        });
        expect(after.status, JSON.stringify(after.body).slice(0, 300)).to.be.within(200, 299);
        await checkWrites(tool.write === true, () => `valid ${route.method} ${route.path}`);
      });
    });

    mcpTools({ writeTools: true }).forEach((tool, index) => {
      const runs = tool.write ? WRITE_RUNS : READ_RUNS;
      it(`MCP ${tool.name}: ${runs} generated argument sets never fail internally, every failure is isError or a JSON-RPC error with a message`, async () => {
        await fc.assert(
          fc.asyncProperty(inputArb(tool, w), async (args) => {
            tried.mcp += 1;
            if (carriesMib(args)) tried.mib += 1;
            const res = await fetch(`${server.url}/mcp`, {
              method: 'POST',
              headers: {
                Authorization: `Bearer ${w.roles.admin.pat}`,
                'Content-Type': 'application/json',
                Accept: 'application/json, text/event-stream',
              },
              body: `{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"name":${JSON.stringify(tool.name)},"arguments":${jsonText(args)}}}`,
            });
            const text = await res.text();
            const describeInput = () =>
              `${tool.name} ${jsonText(args).slice(0, 300)} → ${res.status} ${text.slice(0, 300)}`;
            let wrote = false;
            if (res.status !== 200) {
              // Transport-level refusals (body too large, nested too deep) are problem+json like REST.
              expect(res.status, describeInput()).to.be.within(400, 499);
              expect(res.headers.get('content-type'), describeInput()).to.match(
                /^application\/problem\+json/,
              );
            } else {
              const rpc = JSON.parse(text) as {
                result?: { isError?: boolean; content?: { text?: string }[]; structuredContent?: unknown };
                error?: { code: number; message: string };
              };
              if (rpc.error) {
                // Arguments that are not an object fail the SDK's own request schema (-32603, see report).
                const notObject =
                  !(args && typeof args === 'object' && !Array.isArray(args)) ||
                  args instanceof RawJson ||
                  args instanceof Big;
                expect(rpc.error.code, describeInput()).to.be.oneOf(notObject ? [-32602, -32603] : [-32602]);
                expect(rpc.error.message, describeInput()).to.be.a('string').that.is.not.empty;
              } else if (rpc.result?.isError) {
                const message = rpc.result.content?.[0]?.text ?? '';
                expect(message, describeInput()).to.be.a('string').that.is.not.empty;
                expect(message, describeInput()).not.to.match(/internal error/i);
              } else {
                expect(rpc.result?.structuredContent, describeInput()).to.be.an('object');
                wrote = tool.write === true;
              }
              if (tool.write && !wrote) tried.rejectedWrites += 1;
            }
            await checkWrites(wrote, describeInput);
          }),
          { numRuns: runs, seed: SEED + 1000 + index },
        );
        await restoreOwnObjects();
        const after = await mcpCall(server.url, w.roles.admin.pat, tool.name, baseInput(tool, w.own));
        expect(after.body?.result?.isError, after.text.slice(0, 300)).to.not.equal(true);
        await checkWrites(tool.write === true, () => `valid ${tool.name}`);
      });
    });
  });
}
