// Tool schemas are sent to every client before its first question, so their size is a cost paid per session.

type Json = null | boolean | number | string | Json[] | { [key: string]: Json };
type JsonObject = { [key: string]: Json };

const isObject = (v: Json | undefined): v is JsonObject =>
  typeof v === 'object' && v !== null && !Array.isArray(v);

/** Keys whose object values are maps of names to schemas, not schemas themselves. */
const SCHEMA_MAPS = new Set(['properties', '$defs', 'patternProperties']);

/** Keywords of a result's schema that only restate what every result does (all fields present, no others). */
const OUTPUT_NOISE = new Set(['required', 'additionalProperties', 'description']);

/**
 * Removes what costs characters and tells a client nothing: zod's safe-integer bounds on every
 * integer, `{not: {}}` for "no other keys", and, in output schemas (`output`), field descriptions,
 * `required` and `additionalProperties` (a result always has every declared field and no other).
 */
function simplify(node: Json, output: boolean, inMap = false): Json {
  if (Array.isArray(node)) return node.map((child) => simplify(child, output));
  if (!isObject(node)) return node;
  const out: JsonObject = {};
  for (const [key, value] of Object.entries(node)) {
    if (!inMap) {
      if (key === 'minimum' && value === Number.MIN_SAFE_INTEGER) continue;
      if (key === 'maximum' && value === Number.MAX_SAFE_INTEGER) continue;
      if (key === 'additionalProperties' && isObject(value) && isObject(value.not)) continue;
      // "Not empty" is what every client assumes; zod still refuses an empty string with a clear error.
      if (key === 'minLength' && value === 1) continue;
      if (output && OUTPUT_NOISE.has(key)) continue;
    }
    out[key] = simplify(value, output, SCHEMA_MAPS.has(key) && !inMap);
  }
  // `anyOf: [X, {type: null}]` with a plain-typed X reads the same as `type: [X, "null"]`.
  const anyOf = out.anyOf;
  if (Array.isArray(anyOf) && anyOf.length === 2 && isObject(anyOf[1]) && anyOf[1].type === 'null') {
    const first = anyOf[0];
    if (isObject(first) && typeof first.type === 'string' && !('const' in first)) {
      const { anyOf: _a, ...rest } = out;
      const merged: JsonObject = { ...first, ...rest, type: [first.type, 'null'] };
      if (Array.isArray(first.enum)) merged.enum = [...first.enum, null];
      if (
        typeof first.description === 'string' &&
        typeof rest.description === 'string' &&
        !rest.description.includes(first.description)
      )
        merged.description = `${rest.description} ${first.description}`;
      return withoutCurrencyEnum(merged);
    }
  }
  // In a result, a union of object variants reads as one object with every variant's fields.
  const variants = out.oneOf ?? out.anyOf;
  if (
    output &&
    Array.isArray(variants) &&
    variants.length > 1 &&
    variants.every((v) => isObject(v) && v.type === 'object')
  ) {
    const properties: JsonObject = {};
    for (const variant of variants as JsonObject[]) {
      for (const [name, field] of Object.entries(isObject(variant.properties) ? variant.properties : {})) {
        const seen = properties[name];
        if (isObject(seen) && 'const' in seen && isObject(field) && 'const' in field)
          properties[name] = { enum: [seen.const, field.const] };
        else if (isObject(seen) && Array.isArray(seen.enum) && isObject(field) && 'const' in field)
          properties[name] = { enum: [...seen.enum, field.const] };
        else if (!(name in properties)) properties[name] = field;
        else if (JSON.stringify(seen) !== JSON.stringify(field)) {
          const options = isObject(seen) && Array.isArray(seen.anyOf) ? seen.anyOf : [seen];
          if (!options.some((o) => JSON.stringify(o) === JSON.stringify(field)))
            properties[name] = { anyOf: [...options, field] };
        }
      }
    }
    const { oneOf: _o, anyOf: _a, ...rest } = out;
    return { ...rest, type: 'object', properties };
  }
  // The `default` keyword already says what a trailing "Default 12." says.
  if ('default' in out && typeof out.description === 'string') {
    const stated = `Default ${JSON.stringify(out.default).replace(/^"|"$/g, '')}.`;
    if (out.description.endsWith(` ${stated}`))
      out.description = out.description.slice(0, -stated.length - 1);
  }
  // A date's `format` says what zod's long validating pattern says.
  if (out.format === 'date' && typeof out.pattern === 'string') delete out.pattern;
  if (typeof out.type === 'string' && 'const' in out) delete out.type;
  return withoutCurrencyEnum(out);
}

/** How deep a result's objects keep their fields in the listing: the result's own fields; objects within read as `object`. */
export const OUTPUT_DEPTH = 1;

/** Plain values read as `{}` from this depth: a result's own fields show whether they hold an object or a list. */
const TYPED_DEPTH = 1;

/** Enums in a result longer than this are listed as their plain type: the values show in the data. */
const OUTPUT_ENUM_MAX = 8;

/** A list of ISO 4217 codes costs hundreds of characters; zod still checks the code on every call. */
const isCurrencyEnum = (values: Json[]) =>
  values.length > 8 && values.every((v) => v === null || (typeof v === 'string' && /^[A-Z]{3}$/.test(v)));

function withoutCurrencyEnum(node: JsonObject): JsonObject {
  if (!Array.isArray(node.enum) || !isCurrencyEnum(node.enum)) return node;
  const { enum: _e, ...rest } = node;
  const note = 'ISO 4217 code.';
  if (typeof rest.description !== 'string') rest.description = note;
  else if (!rest.description.includes('ISO 4217')) rest.description = `${rest.description} ${note}`;
  return rest;
}

/** A field holding a plain value (no object or array inside), possibly null. */
function isScalar(node: JsonObject): boolean {
  if ('properties' in node || 'items' in node || '$ref' in node || 'anyOf' in node || 'oneOf' in node)
    return false;
  const types = Array.isArray(node.type) ? node.type : [node.type];
  return types.every((t) => t !== 'object' && t !== 'array');
}

/**
 * Trims a result's schema to what a client plans with: the names of the result's own fields, and
 * which of them hold an object or a list; the fields of objects within them, the types of plain
 * values, long enums and formats are left out (the listing is paid for by
 * every session; zod still checks each result in full before it is sent, and concise results state
 * their columns and definitions themselves).
 */
function outline(node: Json, depth: number): Json {
  if (Array.isArray(node)) return node.map((child) => outline(child, depth));
  if (!isObject(node)) return node;
  if (depth >= TYPED_DEPTH && isScalar(node)) return {};
  const out: JsonObject = {};
  for (const [key, value] of Object.entries(node)) {
    if (key === 'format' || key === 'pattern') continue;
    if (key === 'enum' && Array.isArray(value) && value.length > OUTPUT_ENUM_MAX) continue;
    if (key === 'properties' && isObject(value)) {
      if (depth >= OUTPUT_DEPTH) continue;
      // Fields that all share one shape (a record keyed by metric) read like a list's items: no level deeper.
      const shapes = new Set(Object.values(value).map((field) => JSON.stringify(field)));
      const next = shapes.size === 1 && Object.keys(value).length > 1 ? depth : depth + 1;
      const fields: JsonObject = {};
      for (const [name, field] of Object.entries(value)) fields[name] = outline(field, next);
      out.properties = fields;
    } else if (key === '$defs' && isObject(value)) {
      out.$defs = value;
    } else out[key] = outline(value, depth);
  }
  // A union with an unconstrained branch accepts anything, so it reads as `{}`.
  const union = out.anyOf ?? out.oneOf;
  if (Array.isArray(union) && union.some((v) => isObject(v) && !Object.keys(v).length)) return {};
  return out;
}

const isSchema = (node: JsonObject) => 'type' in node || 'anyOf' in node || 'enum' in node || 'oneOf' in node;

interface Site {
  parent: JsonObject | Json[];
  key: string | number;
  node: JsonObject;
  hint: string;
}

/** Every subschema below the root, with where it sits (the root itself is never replaced). */
function sites(root: JsonObject): Site[] {
  const found: Site[] = [];
  const visit = (node: Json, hint: string, inMap: boolean) => {
    if (Array.isArray(node)) {
      node.forEach((child, i) => {
        if (isObject(child) && isSchema(child)) found.push({ parent: node, key: i, node: child, hint });
        visit(child, hint, false);
      });
      return;
    }
    if (!isObject(node)) return;
    for (const [key, child] of Object.entries(node)) {
      if (!isObject(child)) {
        visit(child, hint, false);
        continue;
      }
      const name = inMap ? key : hint;
      if (!SCHEMA_MAPS.has(key) && key !== 'default' && key !== 'const' && isSchema(child))
        found.push({ parent: node, key, node: child, hint: name });
      visit(child, name, SCHEMA_MAPS.has(key));
    }
  };
  visit(root, 'shape', false);
  return found;
}

function withoutDescription(node: JsonObject): JsonObject {
  const { description: _d, ...rest } = node;
  return rest;
}

const typesOf = (node: JsonObject): Json[] =>
  Array.isArray(node.type) ? node.type : node.type === undefined ? [] : [node.type];

/** The JSON type of a constant, as an enum's `type` states it. */
function jsonType(value: Json): string {
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'array';
  if (typeof value === 'number') return Number.isInteger(value) ? 'integer' : 'number';
  return typeof value;
}

/** A branch that only lists allowed values: `{const}` or `{enum}`, maybe with their type. */
const isValueList = (node: JsonObject) =>
  ('const' in node || Array.isArray(node.enum)) &&
  Object.keys(node).every((k) => k === 'const' || k === 'enum' || k === 'type' || k === 'description');

/**
 * One flat schema for a union of an input: allowed values become one `enum`, a nullable becomes a
 * type list with "null", plain types become one type list. Strict clients (OpenAI's strict mode,
 * LangChain) drop or refuse `anyOf`, so a union that cannot be said flat is a build error.
 */
function flattenUnion(node: JsonObject): JsonObject {
  const union = node.anyOf ?? node.oneOf;
  if (!Array.isArray(union)) return node;
  const { anyOf: _a, oneOf: _o, ...rest } = node;
  const branches = union.flatMap((b) =>
    isObject(b) && Array.isArray(b.anyOf ?? b.oneOf) ? flattenUnion(b) : b,
  );
  const expanded = branches.flatMap((b) => (isObject(b) && Array.isArray(b.anyOf) ? b.anyOf : [b]));
  const nullable = expanded.some((b) => isObject(b) && b.type === 'null');
  const others = expanded.filter((b): b is JsonObject => isObject(b) && b.type !== 'null');
  let merged: JsonObject;
  if (others.length > 0 && others.every(isValueList)) {
    const values = others.flatMap((b) => ('const' in b ? [b.const as Json] : (b.enum as Json[])));
    const types = [...new Set(values.map(jsonType))];
    const numeric = types.includes('number') ? types.filter((t) => t !== 'integer') : types;
    const description = others.find((b) => typeof b.description === 'string')?.description;
    merged = {
      ...(description ? { description } : {}),
      type: numeric.length === 1 ? numeric[0]! : numeric,
      enum: values,
    };
  } else if (others.length === 1) {
    merged = others[0]!;
  } else if (others.every((b) => Object.keys(b).every((k) => k === 'type' || k === 'description'))) {
    merged = { type: [...new Set(others.flatMap(typesOf))] };
  } else {
    throw new Error(
      `an input union cannot be listed as one flat schema: ${JSON.stringify(node).slice(0, 200)}`,
    );
  }
  const out: JsonObject = { ...merged, ...rest };
  if (
    typeof merged.description === 'string' &&
    typeof rest.description === 'string' &&
    !rest.description.includes(merged.description)
  )
    out.description = `${rest.description} ${merged.description}`;
  if (nullable) {
    const types = typesOf(merged);
    if (types.length > 0 && !types.includes('null')) out.type = [...types, 'null'];
    if (Array.isArray(merged.enum) && !merged.enum.includes(null)) out.enum = [...merged.enum, null];
  }
  return out;
}

/**
 * An input schema as strict clients take it: every union flat (see `flattenUnion`) and every object
 * closed with `additionalProperties: false` (MCP calls refuse unknown fields, see mcp/strict-input.ts).
 */
function strictInput(node: Json): Json {
  if (Array.isArray(node)) return node.map(strictInput);
  if (!isObject(node)) return node;
  const out: JsonObject = {};
  for (const [key, value] of Object.entries(node)) {
    if (key === 'properties' && isObject(value))
      out.properties = Object.fromEntries(Object.entries(value).map(([k, v]) => [k, strictInput(v)]));
    else if (key === 'default' || key === 'const' || key === 'enum') out[key] = value;
    else out[key] = strictInput(value);
  }
  const flat = withoutCurrencyEnum(flattenUnion(out));
  if (typesOf(flat).includes('object') || isObject(flat.properties)) {
    flat.properties ??= {};
    flat.additionalProperties = false;
  }
  return flat;
}

/**
 * Simplifies the schema (see `simplify`). An input is then made strict (see `strictInput`): flat,
 * with no `$ref`. A result moves every subschema that appears more than once into `$defs`,
 * referenced with `$ref`, largest saving first; a shape repeated under different descriptions is
 * shared and keeps each description beside its reference.
 */
export function compactSchema(
  schema: Record<string, unknown>,
  io: 'input' | 'output',
): Record<string, unknown> {
  const simple = simplify(schema as Json, io === 'output');
  if (io === 'input') return strictInput(simple) as JsonObject;
  const root = (io === 'output' ? outline(simple, 0) : simple) as JsonObject;
  const defs: JsonObject = isObject(root.$defs) ? root.$defs : {};
  root.$defs = defs;
  for (;;) {
    const groups = new Map<string, { sites: Site[]; shape: JsonObject; keepDescription: boolean }>();
    for (const site of sites(root)) {
      for (const keepDescription of [false, true]) {
        const shape = keepDescription ? withoutDescription(site.node) : site.node;
        const key = `${keepDescription}:${JSON.stringify(shape)}`;
        const group = groups.get(key) ?? { sites: [], shape, keepDescription };
        group.sites.push(site);
        groups.set(key, group);
      }
    }
    let best: { saving: number; sites: Site[]; shape: JsonObject; keepDescription: boolean } | null = null;
    for (const group of groups.values()) {
      if (group.sites.length < 2) continue;
      const saving = (group.sites.length - 1) * JSON.stringify(group.shape).length - group.sites.length * 30;
      if (saving > 60 && (!best || saving > best.saving)) best = { ...group, saving };
    }
    if (!best) break;
    let name = best.sites[0]!.hint.replace(/[^A-Za-z0-9_]/g, '_');
    for (let n = 2; name in defs; n++) name = `${best.sites[0]!.hint}_${n}`;
    defs[name] = best.shape;
    for (const site of best.sites) {
      const ref: JsonObject = { $ref: `#/$defs/${name}` };
      if (best.keepDescription && typeof site.node.description === 'string')
        ref.description = site.node.description;
      (site.parent as Record<string | number, Json>)[site.key] = ref;
    }
  }
  if (!Object.keys(defs).length) delete root.$defs;
  return root;
}
