import { z } from 'zod';
import { defineTool, readOnly } from '../define.ts';
import { FirmDetails, toFirmDetails } from '../schemas/firm.ts';

export const getFirmDetails = defineTool({
  name: 'get_firm_details',
  title: 'Get firm details',
  description: "Returns the caller's firm: name, slug, country, city, preferred currency and feature flags.",
  input: z.object({}),
  output: FirmDetails,
  annotations: readOnly,
  mcp: false,
  routes: [{ method: 'GET', path: '/v1/firm-details/', summary: "The caller's firm" }],
  async handler(ctx) {
    return toFirmDetails(ctx.principal.firm);
  },
});
