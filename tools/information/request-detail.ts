import { z } from 'zod';
import { utcDate } from '../../core/clock.ts';
import type { ToolContext } from '../context.ts';
import { NotFound } from '../errors.ts';
import { InformationRequest, toInformationRequest } from '../schemas/information.ts';

/** One request as its own routes answer it: the list's item, with the companies it asks. */
export const InformationRequestDetail = InformationRequest.extend({
  company_ids: z.array(z.string()).describe('Companies the request asks (of those you can see).'),
});
export type InformationRequestDetail = z.infer<typeof InformationRequestDetail>;

/** The request as the caller may see it now; a 404 when it is not theirs. */
export async function requestDetail(ctx: ToolContext, id: string): Promise<InformationRequestDetail> {
  const { repos, principal } = ctx;
  const row = await repos.information.countedRequest(principal.scope, id, utcDate(ctx.clock.now()));
  if (!row) throw new NotFound(`no information request with id ${id}; list_information_requests lists them`);
  const [items, companies] = await Promise.all([
    repos.information.requestedItems([id]),
    repos.information.requestCompanies([id]),
  ]);
  const visible = principal.scope.companyIds && new Set(principal.scope.companyIds);
  const companyIds = (companies.get(id) ?? []).filter((c) => !visible || visible.has(c));
  return {
    ...toInformationRequest(row, items.documents.get(id) ?? [], items.metrics.get(id) ?? []),
    company_ids: companyIds,
  };
}
