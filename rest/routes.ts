import { getCompany } from '../tools/companies/get-company.ts';
import { listCompanies } from '../tools/companies/list-companies.ts';
import type { Route } from './adapter.ts';

const paging = { page_size: 'per_page' };

/** Every REST route, one line each over the tool it calls. */
export const routes: readonly Route[] = [
  {
    method: 'GET',
    path: '/v1/companies/',
    tool: listCompanies,
    summary: 'List companies',
    rename: { ...paging },
    envelope: 'page',
  },
  {
    method: 'GET',
    path: '/v1/companies/:company_id/',
    tool: getCompany,
    summary: 'Get one company',
    envelope: 'plain',
  },
];
