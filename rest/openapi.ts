import { z } from 'zod';
import {
  createDocument,
  type oas31,
  type ZodOpenApiOperationObject,
  type ZodOpenApiParameters,
  type ZodOpenApiPathsObject,
  type ZodOpenApiRequestBodyObject,
  type ZodOpenApiResponseObject,
  type ZodOpenApiResponsesObject,
} from 'zod-openapi';
import { extensionList } from '../core/file-types.ts';
import type { Route } from './adapter.ts';

type Shape = Record<string, z.ZodType>;

/** RFC 9457 problem details as rest/problem.ts writes them (open to more members); one shared component. */
const Problem = z
  .looseObject({
    type: z.string(),
    title: z.string(),
    status: z.int(),
    detail: z.string(),
    code: z.string(),
    request_id: z.string().optional(),
    errors: z.array(z.object({ field: z.string(), message: z.string() })).optional(),
  })
  .meta({ id: 'Problem' });

function problemResponse(description: string): ZodOpenApiResponseObject {
  return { description, content: { 'application/problem+json': { schema: Problem } } };
}

const errorResponses: ZodOpenApiResponsesObject = {
  '400': problemResponse('Invalid or missing parameter'),
  '401': problemResponse('Missing, invalid, expired or revoked token'),
  '403': problemResponse('Permission denied'),
  '404': problemResponse('Not found, or page out of range'),
  '429': problemResponse('Rate limit exceeded'),
};

const idempotencyKey = z
  .string()
  .max(255)
  .optional()
  .meta({ description: 'Replays the first response for 24 hours instead of writing twice.' });

const csvFormat = z
  .enum(['json', 'csv'])
  .optional()
  .meta({ description: 'csv returns the page as CSV (as does Accept: text/csv).' });

function pathParams(path: string): string[] {
  return [...path.matchAll(/:(\w+)/g)].map((m) => m[1]!);
}

/** Path parameters; on GET the other input fields as query parameters (named after `rename`); Idempotency-Key on writes. */
function parameters(route: Route): ZodOpenApiParameters {
  const shape = route.tool.input.shape as Shape;
  const fieldOf = (name: string) => route.rename?.[name] ?? name;
  const inPath = pathParams(route.path);
  const pathFields = new Set(inPath.map(fieldOf));
  const params: ZodOpenApiParameters = {};
  if (inPath.length > 0) {
    params.path = z.object(
      Object.fromEntries(inPath.map((name) => [name, shape[fieldOf(name)] ?? z.string()])),
    );
  }
  // A write reads the query only when its body is one field of the input (the rest comes from the query).
  const bodyField = typeof route.body === 'object' ? route.body.field : undefined;
  if (route.method === 'GET' || bodyField) {
    const toQuery = new Map(Object.entries(route.rename ?? {}).map(([q, f]) => [f, q]));
    const query: Shape = {};
    for (const [field, schema] of Object.entries(shape)) {
      if (pathFields.has(field) || field === bodyField) continue;
      // A field whose name the route gives to another field is out of a query's reach.
      const name = toQuery.get(field) ?? field;
      if (name === field && route.rename?.[field] !== undefined) continue;
      query[name] = route.narrower?.[field] ?? schema;
    }
    if (route.envelope === 'page') query.format = csvFormat;
    if (Object.keys(query).length > 0) params.query = z.object(query);
  }
  if (route.method !== 'GET') params.header = z.object({ 'Idempotency-Key': idempotencyKey });
  return params;
}

const megabytes = (bytes: number) => Math.floor(bytes / (1024 * 1024));

/** The form of an upload route: its file part and the tool's other fields (path parameters aside). */
function multipartSchema(route: Route): z.ZodType {
  const upload = route.upload!;
  const inPath = new Set(pathParams(route.path).map((name) => route.rename?.[name] ?? name));
  const toForm = new Map(Object.entries(route.rename ?? {}).map(([q, f]) => [f, q]));
  const form: Shape = {};
  for (const [field, schema] of Object.entries(route.tool.input.shape as Shape)) {
    if (inPath.has(field)) continue;
    form[toForm.get(field) ?? field] =
      field === upload.field
        ? z.string().meta({
            format: 'binary',
            description:
              `${schema.description ?? 'The file.'} At most ${megabytes(upload.maxBytes)} MB; accepted: ` +
              `${extensionList(upload.formats)} (the content must be of the type its extension names).`,
          })
        : schema;
  }
  return z.object(form);
}

/** A JSON body on POST, PATCH and PUT: the whole input for `merge`, one field's schema for `{ field }`; a form for uploads. */
function requestBody(route: Route): ZodOpenApiRequestBodyObject | undefined {
  if (route.method === 'GET' || route.method === 'DELETE') return undefined;
  if (route.upload) {
    return { required: true, content: { 'multipart/form-data': { schema: multipartSchema(route) } } };
  }
  const schema =
    typeof route.body === 'object'
      ? ((route.tool.input.shape as Shape)[route.body.field] ?? z.unknown())
      : route.tool.input;
  return {
    required: route.method === 'PATCH' || route.method === 'PUT' || route.status === 201,
    content: { 'application/json': { schema } },
  };
}

/** The tool's output in the route's envelope (rest/adapter.ts `payload`). */
function successSchema(route: Route): z.ZodType {
  const shape = (route.tool.output as z.ZodObject).shape ?? {};
  const listed = shape.results as z.ZodType | undefined;
  const row = listed instanceof z.ZodArray && listed.element instanceof z.ZodObject ? listed.element : null;
  const results =
    route.mcpOnly && row
      ? z.array(row.omit(Object.fromEntries(route.mcpOnly.map((f) => [f, true])) as Record<string, true>))
      : listed;
  if (route.envelope === 'page') {
    return z.object({
      count: z.int().min(0),
      next: z.url().nullable(),
      previous: z.url().nullable(),
      results: results ?? z.array(z.unknown()),
      ...Object.fromEntries((route.alongside ?? []).map((name) => [name, shape[name] as z.ZodType])),
    });
  }
  if (route.envelope === 'results') return results ?? z.array(z.unknown());
  return route.tool.output;
}

/** The success response (with CSV beside JSON on page routes) and the problem+json errors. */
function responses(route: Route): ZodOpenApiResponsesObject {
  return {
    [String(route.status ?? 200)]: {
      description: 'Success',
      content: {
        'application/json': { schema: successSchema(route) },
        ...(route.envelope === 'page' ? { 'text/csv': { schema: z.string() } } : {}),
      },
    },
    ...errorResponses,
    ...(route.method !== 'GET'
      ? {
          '409': problemResponse(
            'An Idempotency-Key reused with a different request, or a conflict the write refuses',
          ),
        }
      : {}),
    ...(route.upload
      ? {
          '413': problemResponse(`The file is larger than ${megabytes(route.upload.maxBytes)} MB`),
          '415': problemResponse('Not multipart/form-data, or a file type that is not accepted'),
        }
      : {}),
  };
}

function tag(path: string): string {
  const [, first, second] = path.split('/');
  return first === 'beta' ? 'beta investment' : (second ?? 'v1');
}

function operation(route: Route): ZodOpenApiOperationObject {
  const body = requestBody(route);
  return {
    operationId: route.tool.name,
    summary: route.summary,
    description: route.tool.description,
    tags: [tag(route.path)],
    security: [{ bearer: [] }],
    requestParams: parameters(route),
    ...(body ? { requestBody: body } : {}),
    responses: responses(route),
  };
}

/** The client-credentials token endpoint, served by auth/ rather than by a tool. */
const tokenPath: ZodOpenApiPathsObject = {
  '/o/token/': {
    post: {
      operationId: 'token',
      summary: 'Exchange client credentials for a bearer token',
      tags: ['auth'],
      security: [{ basic: [] }],
      requestBody: {
        required: true,
        content: {
          'application/x-www-form-urlencoded': {
            schema: z.object({ grant_type: z.literal('client_credentials') }),
          },
        },
      },
      responses: {
        '200': {
          description: 'A bearer token',
          content: {
            'application/json': {
              schema: z.object({
                access_token: z.string(),
                expires_in: z.literal(3600),
                token_type: z.literal('Bearer'),
                scope: z.literal('read write'),
              }),
            },
          },
        },
        '400': { description: 'RFC 6749 error (invalid_request, unsupported_grant_type …)' },
        '401': { description: 'RFC 6749 invalid_client' },
      },
    },
  },
};

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

function binaryOperation(read: (typeof binaryReads)[number]): ZodOpenApiOperationObject {
  return {
    operationId: read.operationId,
    summary: read.summary,
    tags: [read.tag],
    security: [{ bearer: [] }],
    requestParams: { path: z.object({ [read.parameter]: z.string() }) },
    responses: {
      '200': {
        description: 'The stored bytes, with their media type',
        content: { [read.mediaType]: { schema: z.string().meta({ format: 'binary' }) } },
      },
      '401': errorResponses['401']!,
      '403': errorResponses['403']!,
      '404': problemResponse('Not found'),
      '429': errorResponses['429']!,
    },
  };
}

/** The OpenAPI 3.1 document, generated from the route table and the tools' Zod schemas. */
export function openApiDocument(routes: readonly Route[], serverUrl: string): oas31.OpenAPIObject {
  const paths: ZodOpenApiPathsObject = {};
  for (const route of routes) {
    const path = route.path.replace(/:(\w+)/g, '{$1}');
    paths[path] = { ...paths[path], [route.method.toLowerCase()]: operation(route) };
  }
  for (const read of binaryReads) paths[read.path] = { ...paths[read.path], get: binaryOperation(read) };
  return createDocument(
    {
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
      },
      paths: { ...paths, ...tokenPath },
    },
    // Tool schemas may hold transforms and other shapes JSON Schema cannot state; they render as `{}`.
    { allowEmptySchema: { custom: true, transform: true, pipe: true } },
  );
}
