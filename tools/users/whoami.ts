import { z } from 'zod';
import { defineTool, readOnly } from '../define.ts';
import { toWhoami, Whoami } from '../schemas/user.ts';

export const whoami = defineTool({
  name: 'whoami',
  title: 'Who am I',
  description: "The signed-in user's name, e-mail, role (admin, editor or viewer) and firm.",
  input: z.object({}),
  output: Whoami,
  annotations: readOnly,
  routes: [{ method: 'GET', path: '/v1/whoami/', summary: 'The calling user and their firm' }],
  async handler(ctx) {
    return toWhoami(ctx.principal.user, ctx.principal.firm);
  },
});
