import { z } from 'zod';
import { defineTool, readOnly } from '../define.ts';
import { toWhoami, Whoami } from '../schemas/user.ts';

export const whoami = defineTool({
  name: 'whoami',
  title: 'Who am I',
  description:
    "Returns the signed-in user's name, e-mail address, role (admin, editor or viewer) and firm. Use it " +
    'to know whose data you are reading and what the user may do.',
  input: z.object({}),
  output: Whoami,
  annotations: readOnly,
  async handler(ctx) {
    return toWhoami(ctx.principal.user, ctx.principal.firm);
  },
});
