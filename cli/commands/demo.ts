import { removeDemoData } from '../../db/demo.ts';
import { defineCommand, output } from '../command.ts';

export const demoRemove = defineCommand({
  name: 'demo remove',
  summary: 'remove the demo data: every seeded firm with everything it owns, and every seeded credential',
  options: {},
  async run(ctx) {
    const removed = await removeDemoData(ctx.db);
    output(ctx, removed, () => [
      `removed ${removed.firm} demo firm(s) with everything they own, ${removed.user} user(s), ` +
        `${removed.application} application(s) and ${removed.token} token(s) besides`,
    ]);
  },
});
