import { z } from 'zod';
import { extensionList } from '../core/file-types.ts';
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

const megabytes = (bytes: number) => Math.floor(bytes / (1024 * 1024));

/** The form of an upload route: its file part and the tool's other fields (path parameters aside). */
function multipartSchema(route: Route): JsonSchema {
  const upload = route.upload!;
  const input = schemaOf(route.tool.input, 'input') as {
    properties?: Record<string, JsonSchema>;
    required?: string[];
  };
  const inPath = new Set(pathParams(route.path).map((name) => route.rename?.[name] ?? name));
  const toForm = new Map(Object.entries(route.rename ?? {}).map(([q, f]) => [f, q]));
  const properties: Record<string, JsonSchema> = {};
  const required: string[] = [];
  for (const [field, schema] of Object.entries(input.properties ?? {})) {
    if (inPath.has(field)) continue;
    const name = toForm.get(field) ?? field;
    properties[name] =
      field === upload.field
        ? {
            type: 'string',
            format: 'binary',
            description:
              `${schema.description ?? 'The file.'} At most ${megabytes(upload.maxBytes)} MB; accepted: ` +
              `${extensionList(upload.formats)} (the content must be of the type its extension names).`,
          }
        : schema;
    if (input.required?.includes(field)) required.push(name);
  }
  return { type: 'object', required, properties };
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
    if (route.upload) {
      op.requestBody = {
        required: true,
        content: { 'multipart/form-data': { schema: multipartSchema(route) } },
      };
      Object.assign(op.responses as JsonSchema, {
        '413': problemResponse(`The file is larger than ${megabytes(route.upload.maxBytes)} MB`),
        '415': problemResponse('Not multipart/form-data, or a file type that is not accepted'),
      });
    } else if (route.method !== 'DELETE') {
      op.requestBody = {
        required: route.method === 'PATCH' || route.method === 'PUT' || route.status === 201,
        content: { 'application/json': { schema: schemaOf(route.tool.input, 'input') } },
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

/** GET routes that serve stored bytes instead of a tool's JSON (rest/download.ts). */
const binaryReads = [
  {
    path: '/v1/documents/{document_id}/download/',
    operationId: 'download_document',
    summary: 'Download the stored file of a document (its link); needs access to documents',
    tag: 'documents',
    parameter: 'document_id',
    mediaType: 'application/octet-stream',
  },
  {
    path: '/v1/companies/{company_id}/logo/',
    operationId: 'get_company_logo',
    summary: "A company's uploaded logo (its logo_url), as PNG, JPEG, GIF or WebP",
    tag: 'companies',
    parameter: 'company_id',
    mediaType: 'image/*',
  },
];

function binaryOperation(read: (typeof binaryReads)[number]): JsonSchema {
  return {
    operationId: read.operationId,
    summary: read.summary,
    tags: [read.tag],
    security: [{ bearer: [] }],
    parameters: [{ name: read.parameter, in: 'path', required: true, schema: { type: 'string' } }],
    responses: {
      '200': {
        description: 'The stored bytes, with their media type',
        content: { [read.mediaType]: { schema: { type: 'string', format: 'binary' } } },
      },
      '401': problemResponse('Missing, invalid, expired or revoked token'),
      '403': problemResponse('Permission denied'),
      '404': problemResponse('Not found'),
      '429': problemResponse('Rate limit exceeded'),
    },
  };
}

/** The OpenAPI 3.1 document, generated from the route table and the tools' Zod schemas. */
export function openApiDocument(routes: readonly Route[], serverUrl: string): JsonSchema {
  const paths: Record<string, Record<string, JsonSchema>> = {};
  for (const route of routes) {
    const path = route.path.replace(/:(\w+)/g, '{$1}');
    paths[path] ??= {};
    paths[path][route.method.toLowerCase()] = operation(route);
  }
  for (const read of binaryReads) {
    paths[read.path] ??= {};
    paths[read.path].get = binaryOperation(read);
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
