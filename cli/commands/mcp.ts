import { principalForEmail } from '../../auth/local-principal.ts';
import { createLogger } from '../../server/logger.ts';
import { serveMcpStdio } from '../../tools/mcp.ts';
import { UsageError } from '../args.ts';
import { defineCommand } from '../command.ts';

export const mcpCommand = defineCommand({
  name: 'mcp',
  usage: '--stdio --user E',
  summary: 'serve the MCP tools over stdio as a user, for desktop clients that launch a local command',
  options: {
    stdio: { type: 'boolean' },
    user: { type: 'string', required: true },
  },
  async run(ctx, args) {
    if (!args.flag('stdio'))
      throw new UsageError('only --stdio is supported', 'usage: portfolio mcp --stdio --user E');
    const principal = await principalForEmail(ctx.repos, args.need('user'));
    // stdout carries the protocol; logs go to stderr.
    const logger = createLogger(ctx.config.logLevel === 'info' ? 'warn' : ctx.config.logLevel);
    await serveMcpStdio(
      {
        principal,
        repos: ctx.repos,
        clock: ctx.clock,
        logger,
        requestId: 'stdio',
        publicUrl: ctx.config.publicUrl,
      },
      { writeTools: ctx.config.mcpWriteTools },
    );
  },
});
