import { getCompany } from './companies/get-company.ts';
import { listCompanies } from './companies/list-companies.ts';
import type { AnyTool } from './define.ts';

/** Every tool, grouped by domain: the table of contents of the service. */
export const registry: readonly AnyTool[] = [
  // Companies
  listCompanies,
  getCompany,
] as unknown as AnyTool[];

const byName = new Map(registry.map((t) => [t.name, t]));

export function toolByName(name: string): AnyTool | undefined {
  return byName.get(name);
}
