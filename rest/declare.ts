import type { AnyTool } from '../tools/define.ts';
import type { Route } from './adapter.ts';

/** What a route says beyond its method, path, tool and summary; the envelope defaults to 'plain'. */
export type RouteOptions = Partial<
  Pick<
    Route,
    | 'rename'
    | 'body'
    | 'envelope'
    | 'alongside'
    | 'status'
    | 'bodyLimit'
    | 'requireOneOf'
    | 'upload'
    | 'defaults'
  >
>;

function declare(method: Route['method']) {
  return (path: string, tool: AnyTool, summary: string, options: RouteOptions = {}): Route => ({
    method,
    path,
    tool,
    summary,
    envelope: 'plain',
    ...options,
  });
}

/** One REST route in one line: `get('/v1/companies/', listCompanies, 'List companies', { envelope: 'page' })`. */
export const get = declare('GET');
export const post = declare('POST');
export const patch = declare('PATCH');
export const put = declare('PUT');
export const del = declare('DELETE');
