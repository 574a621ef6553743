import { z } from 'zod';
import { defineTool, readOnly } from '../define.ts';
import { toWebhook, Webhook } from './common.ts';

export const listWebhooks = defineTool({
  name: 'list_webhooks',
  title: 'List webhook endpoints',
  description: "The firm's webhook endpoints, whether each is enabled and why one was disabled. Admin role.",
  input: z.object({}),
  output: z.object({ results: z.array(Webhook) }),
  annotations: readOnly,
  permission: 'manage_webhooks',
  mcp: false,
  routes: [{ method: 'GET', path: '/v1/webhooks/', summary: 'List webhook endpoints' }],
  async handler(ctx) {
    const now = ctx.clock.now();
    const rows = await ctx.repos.webhooks.listEndpoints(ctx.principal.firm.id);
    return { results: rows.map((r) => toWebhook(r, now)) };
  },
});
