import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { Ajv, type ValidateFunction } from 'ajv';
import formatsModule from 'ajv-formats';

// ajv-formats is CommonJS: under NodeNext its default import is the module object.
const addFormats = ((formatsModule as unknown as { default?: typeof formatsModule }).default ??
  formatsModule) as unknown as (ajv: Ajv) => Ajv;

// Copies of the public reference documents, kept with the tests so a fresh clone can run them.
const referenceDir = fileURLToPath(new URL('../reference', import.meta.url));

export type ReferenceDoc = 'main' | 'investment';

const files: Record<ReferenceDoc, string> = {
  main: 'main-openapi.json',
  investment: 'investment-data-openapi.json',
};

/** OpenAPI 3.0 `nullable: true` becomes a JSON Schema union with null; `discriminator` is dropped (oneOf does the work). */
export function toJsonSchema(node: unknown): unknown {
  if (Array.isArray(node)) return node.map(toJsonSchema);
  if (!node || typeof node !== 'object') return node;
  const out: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(node)) {
    if (key === 'nullable' || key === 'discriminator' || key === 'example') continue;
    out[key] = toJsonSchema(value);
  }
  if ((node as { nullable?: unknown }).nullable !== true) return out;
  if (typeof out.type === 'string') {
    out.type = [out.type, 'null'];
    if (Array.isArray(out.enum)) out.enum = [...out.enum, null];
    return out;
  }
  return { anyOf: [{ type: 'null' }, out] };
}

let ajv: Ajv | undefined;
const compiled = new Map<string, ValidateFunction>();

function instance(): Ajv {
  if (ajv) return ajv;
  ajv = new Ajv({ strict: false, allErrors: true });
  addFormats(ajv);
  ajv.addFormat('slug', /^[-a-zA-Z0-9_]+$/);
  ajv.addFormat('decimal', /^-?\d+(\.\d+)?$/);
  for (const [doc, file] of Object.entries(files)) {
    const json = JSON.parse(readFileSync(`${referenceDir}/${file}`, 'utf8')) as {
      components: { schemas: Record<string, unknown> };
    };
    ajv.addSchema({ $id: doc, components: toJsonSchema(json.components) });
  }
  return ajv;
}

/** A validator for `#/components/schemas/<name>` of a reference document. */
export function referenceValidator(doc: ReferenceDoc, name: string): ValidateFunction {
  const key = `${doc}#/components/schemas/${name}`;
  let validate = compiled.get(key);
  if (!validate) {
    validate = instance().compile({ $ref: key });
    compiled.set(key, validate);
  }
  return validate;
}

/** Throws, naming every violation, unless each value validates against the reference schema. */
export function assertReference(doc: ReferenceDoc, name: string, ...values: unknown[]): void {
  const validate = referenceValidator(doc, name);
  values.forEach((value, i) => {
    if (!validate(value)) {
      const problems = (validate.errors ?? [])
        .map((e) => `${e.instancePath || '/'} ${e.message ?? ''}`)
        .join('; ');
      throw new Error(`item ${i} does not match ${doc} ${name}: ${problems}\n${JSON.stringify(value)}`);
    }
  });
}
