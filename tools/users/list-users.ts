import { z } from 'zod';
import { defineTool, readOnly, restPaging } from '../define.ts';
import { listOf, pageFields, pageResult, toPage } from '../schemas/page.ts';
import { toUser, User } from '../schemas/user.ts';

export const listUsers = defineTool({
  name: 'list_users',
  title: 'List users',
  description: "The firm's users with names and roles; resolves a note's author_id or an investment_lead_id.",
  input: z.object({
    ...pageFields,
    email: z.string().min(1).optional().describe('Only the user with this e-mail address (exact, any case).'),
  }),
  output: listOf(User),
  annotations: readOnly,
  routes: [
    { method: 'GET', path: '/v1/users/', summary: 'List users', rename: restPaging, envelope: 'page' },
  ],
  async handler(ctx, input) {
    const counted = await ctx.repos.users.list(ctx.principal.firm.id, { email: input.email }, toPage(input));
    return pageResult(input, counted, toUser);
  },
});
