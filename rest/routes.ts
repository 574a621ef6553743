import type { AnyTool } from '../tools/define.ts';
import { registry } from '../tools/registry.ts';
import type { Route } from './adapter.ts';

/**
 * Whether `earlier`, registered first, would take requests meant for `later`: the same method and
 * number of segments, each segment of `earlier` equal to the one of `later` or a parameter, and at
 * least one a parameter where `later` has a literal (`/v1/documents/:document_id/` and
 * `/v1/documents/search/`).
 */
function shadows(earlier: Route, later: Route): boolean {
  if (earlier.method !== later.method) return false;
  const a = earlier.path.split('/');
  const b = later.path.split('/');
  if (a.length !== b.length) return false;
  let wider = false;
  for (let i = 0; i < a.length; i++) {
    if (a[i] === b[i]) continue;
    if (!a[i]!.startsWith(':') || b[i]!.startsWith(':')) return false;
    wider = true;
  }
  return wider;
}

/**
 * The REST routes of a tool table, in the table's order, except that a route goes before the first
 * one that would take its requests (express matches routes in the order they are registered).
 */
export function routesOf(tools: readonly AnyTool[]): Route[] {
  const table: Route[] = [];
  for (const tool of tools) {
    for (const declared of tool.routes ?? []) {
      const route: Route = { ...declared, envelope: declared.envelope ?? 'plain', tool };
      const wider = table.findIndex((earlier) => shadows(earlier, route));
      table.splice(wider === -1 ? table.length : wider, 0, route);
    }
  }
  return table;
}

/** Every REST route: the ones the registry's tools declare. */
export const routes: readonly Route[] = routesOf(registry);
