import { z } from 'zod';
import type { AnyTool } from '../tools/define.ts';
import type { Route } from './adapter.ts';

type JsonSchema = Record<string, unknown>;

function schemaOf(schema: z.ZodType, io: 'input' | 'output'): JsonSchema {
  const { $schema: _drop, ...rest } = z.toJSONSchema(schema, { io, unrepresentable: 'any' }) as JsonSchema;
  return rest;
}

const problem: JsonSchema = {
  type: 'object',
  required: ['type', 'title', 'status', 'detail', 'code'],
  properties: {
    type: { type: 'string' },
    title: { type: 'string' },
    status: { type: 'integer' },
    detail: { type: 'string' },
    code: { type: 'string' },
    request_id: { type: 'string' },
    errors: {
      type: 'array',
      items: {
        type: 'object',
        required: ['field', 'message'],
        properties: { field: { type: 'string' }, message: { type: 'string' } },
      },
    },
  },
};

function problemResponse(description: string) {
  return {
    description,
    content: { 'application/problem+json': { schema: { $ref: '#/components/schemas/Problem' } } },
  };
}

function pathParams(path: string): string[] {
  return [...path.matchAll(/:(\w+)/g)].map((m) => m[1]!);
}

function parameters(route: Route): JsonSchema[] {
  const shape = route.tool.input.shape as Record<string, z.ZodType>;
  const inputSchema = schemaOf(route.tool.input, 'input') as { properties?: Record<string, JsonSchema> };
  const required = new Set(((inputSchema as { required?: string[] }).required ?? []) as string[]);
  const toQuery = new Map(Object.entries(route.rename ?? {}).map(([q, f]) => [f, q]));
  const inPath = new Set(pathParams(route.path));
  const params: JsonSchema[] = [];
  for (const name of inPath) {
    const field = route.rename?.[name] ?? name;
    params.push({
      name,
      in: 'path',
      required: true,
      schema: inputSchema.properties?.[field] ?? { type: 'string' },
    });
  }
  if (route.method !== 'GET') return params;
  for (const field of Object.keys(shape)) {
    if (inPath.has(toQuery.get(field) ?? field) || inPath.has(field)) continue;
    const name = toQuery.get(field) ?? field;
    const schema = { ...(inputSchema.properties?.[field] ?? {}) };
    const description = schema.description;
    delete schema.description;
    params.push({
      name,
      in: 'query',
      required: required.has(field) && !('default' in schema),
      ...(description ? { description } : {}),
      schema,
      ...(schema.type === 'array' ? { style: 'form', explode: true } : {}),
    });
  }
  if (route.envelope === 'page') {
    params.push({
      name: 'format',
      in: 'query',
      required: false,
      description: 'csv returns the page as CSV (as does Accept: text/csv).',
      schema: { type: 'string', enum: ['json', 'csv'] },
    });
  }
  return params;
}

function successSchema(route: Route): JsonSchema {
  const out = schemaOf(route.tool.output, 'output') as { properties?: Record<string, JsonSchema> };
  if (route.envelope === 'page') {
    return {
      type: 'object',
      required: ['count', 'results'],
      properties: {
        count: { type: 'integer' },
        next: { type: ['string', 'null'], format: 'uri' },
        previous: { type: ['string', 'null'], format: 'uri' },
        results: out.properties?.results ?? { type: 'array' },
      },
    };
  }
  if (route.envelope === 'results') return out.properties?.results ?? { type: 'array' };
  return out;
}

/** The JSON body of a write: the whole input, or the one input field the body fills. */
function bodySchema(route: Route): JsonSchema {
  const input = schemaOf(route.tool.input, 'input') as { properties?: Record<string, JsonSchema> };
  if (route.body && route.body !== 'merge') return input.properties?.[route.body.field] ?? {};
  return input;
}

function operation(route: Route): JsonSchema {
  const tool: AnyTool = route.tool;
  const op: JsonSchema = {
    operationId: tool.name,
    summary: route.summary,
    description: tool.description,
    tags: [route.path.split('/')[1] === 'beta' ? 'beta investment' : (route.path.split('/')[2] ?? 'v1')],
    security: [{ bearer: [] }],
    parameters: parameters(route),
    responses: {
      [String(route.status ?? 200)]: {
        description: 'Success',
        content: {
          'application/json': { schema: successSchema(route) },
          ...(route.envelope === 'page' ? { 'text/csv': { schema: { type: 'string' } } } : {}),
        },
      },
      '400': problemResponse('Invalid or missing parameter'),
      '401': problemResponse('Missing, invalid, expired or revoked token'),
      '403': problemResponse('Permission denied'),
      '404': problemResponse('Not found, or page out of range'),
      '429': problemResponse('Rate limit exceeded'),
    },
  };
  if (route.method !== 'GET') {
    if (route.method !== 'DELETE') {
      op.requestBody = {
        required: route.method === 'PATCH' || route.method === 'PUT' || route.status === 201,
        content: { 'application/json': { schema: bodySchema(route) } },
      };
    }
    op.parameters = [
      ...(op.parameters as JsonSchema[]),
      {
        name: 'Idempotency-Key',
        in: 'header',
        required: false,
        description: 'Replays the first response for 24 hours instead of writing twice.',
        schema: { type: 'string', maxLength: 255 },
      },
    ];
  }
  return op;
}

/** The OpenAPI 3.1 document, generated from the route table and the tools' Zod schemas. */
export function openApiDocument(routes: readonly Route[], serverUrl: string): JsonSchema {
  const paths: Record<string, Record<string, JsonSchema>> = {};
  for (const route of routes) {
    const path = route.path.replace(/:(\w+)/g, '{$1}');
    paths[path] ??= {};
    paths[path][route.method.toLowerCase()] = operation(route);
  }
  paths['/o/token/'] = {
    post: {
      operationId: 'token',
      summary: 'Exchange client credentials for a bearer token',
      tags: ['auth'],
      security: [{ basic: [] }],
      requestBody: {
        required: true,
        content: {
          'application/x-www-form-urlencoded': {
            schema: {
              type: 'object',
              required: ['grant_type'],
              properties: { grant_type: { type: 'string', enum: ['client_credentials'] } },
            },
          },
        },
      },
      responses: {
        '200': {
          description: 'A bearer token',
          content: {
            'application/json': {
              schema: {
                type: 'object',
                required: ['access_token', 'expires_in', 'token_type', 'scope'],
                properties: {
                  access_token: { type: 'string' },
                  expires_in: { type: 'integer', const: 3600 },
                  token_type: { type: 'string', const: 'Bearer' },
                  scope: { type: 'string', const: 'read write' },
                },
              },
            },
          },
        },
        '400': { description: 'RFC 6749 error (invalid_request, unsupported_grant_type …)' },
        '401': { description: 'RFC 6749 invalid_client' },
      },
    },
  };
  return {
    openapi: '3.1.0',
    info: {
      title: 'Portfolio Data Service',
      version: '1.0.0',
      description:
        'Portfolio-company data of one investment firm. Get a token at /o/token/ with client credentials ' +
        '(HTTP Basic), then send it as `Authorization: Bearer <token>`. Lists are paginated (page, ' +
        'page_size ≤ 100) and also answer CSV. Errors are RFC 9457 problem+json.',
    },
    servers: [{ url: serverUrl }],
    components: {
      securitySchemes: {
        bearer: { type: 'http', scheme: 'bearer' },
        basic: { type: 'http', scheme: 'basic' },
      },
      schemas: { Problem: problem },
    },
    paths,
  };
}
