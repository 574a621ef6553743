import { z } from 'zod';
import { defineTool, readOnly } from '../define.ts';
import { listOf, pageFields, pageResult, toPage } from '../schemas/page.ts';
import { toUser, User } from '../schemas/user.ts';

export const listUsers = defineTool({
  name: 'list_users',
  title: 'List users',
  description:
    "Lists the firm's users by e-mail address with their names and roles; use it to find who wrote a " +
    'note (author_id) or who leads an investment (investment_lead_id). For the caller use whoami.',
  input: z.object({
    ...pageFields,
    email: z.string().min(1).optional().describe('Only the user with this e-mail address (exact, any case).'),
  }),
  output: listOf(User),
  annotations: readOnly,
  async handler(ctx, input) {
    const counted = await ctx.repos.users.list(ctx.principal.firm.id, { email: input.email }, toPage(input));
    return pageResult(input, counted, toUser);
  },
});
