import { principalForEmail } from '../../auth/local-principal.ts';
import { createLogger } from '../../server/logger.ts';
import { defineCommand } from '../command.ts';
import { UsageError } from '../errors.ts';

export const mcpCommand = defineCommand({
  name: 'mcp',
  summary: 'serve the MCP tools over stdio as a user, for desktop clients that launch a local command',
  options: {
    stdio: { type: 'boolean', description: 'speak MCP over stdin and stdout (the only transport here)' },
    user: { type: 'string', value: 'email', required: true, description: 'the user the tools act as' },
  },
  async run(ctx, args) {
    if (!args.flag('stdio')) throw new UsageError('only --stdio is supported');
    // Loaded here, not with the command table: the MCP SDK would slow every other command down.
    const { serveMcpStdio } = await import('../../mcp/server.ts');
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
        documentStorageQuotaBytes: ctx.config.documentStorageQuotaBytes,
        founderLinkDaysAfterDue: ctx.config.founderLinkDaysAfterDue,
      },
      { writeTools: ctx.config.mcpWriteTools, toolsets: ctx.config.mcpToolsets },
    );
  },
});
