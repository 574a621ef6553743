import type { NextFunction, Request, Response } from 'express';

/**
 * Refuses a JSON-RPC batch (a JSON array body) on /mcp: MCP 2025-06-18 removed batching, and a
 * batch would run many tool calls for the price of one counted request.
 */
export function refuseJsonRpcBatch(req: Request, res: Response, next: NextFunction): void {
  if (!Array.isArray(req.body)) {
    next();
    return;
  }
  res.status(400).json({
    jsonrpc: '2.0',
    id: null,
    error: {
      code: -32600,
      message: 'JSON-RPC batches are not supported: send one JSON-RPC message per request',
    },
  });
}
