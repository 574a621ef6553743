import { z } from 'zod';
import { utcDate } from '../../core/clock.ts';
import { defineTool, readOnly } from '../define.ts';
import { NotFound } from '../errors.ts';
import { InformationReportDetail, toInformationReportDetail } from '../schemas/information.ts';

export const reportId = z.string().min(1).describe('Information report id (list_information_reports).');

export const getInformationReport = defineTool({
  name: 'get_information_report',
  title: 'Get an information report',
  description: "One company's report with each item's status and what was given for it.",
  input: z.object({ information_report_id: reportId }),
  output: InformationReportDetail,
  annotations: readOnly,
  mcp: false,
  routes: [
    {
      method: 'GET',
      path: '/v1/information-reports/:information_report_id/',
      summary: 'Get an information report',
    },
  ],
  async handler(ctx, input) {
    const { repos, principal } = ctx;
    const id = input.information_report_id;
    const { rows } = await repos.information.listReports(
      principal.scope,
      { reportId: id },
      { limit: 1, offset: 0 },
    );
    const row = rows[0];
    if (!row) throw new NotFound(`no information report with id ${id}; list_information_reports lists them`);
    const items = await repos.information.reportItems([id]);
    const today = utcDate(ctx.clock.now());
    return toInformationReportDetail(row, items.documents.get(id) ?? [], items.metrics.get(id) ?? [], today);
  },
});
