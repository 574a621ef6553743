import { STATUS_CODES } from 'node:http';
import type { Duplex } from 'node:stream';
import { problemBody } from '../rest/problem.ts';

/**
 * Answers a request Node rejects before Express sees it (a request line and headers over the
 * header size limit, a malformed request) with problem+json like every other error, instead of
 * Node's bare status line.
 */
export function answerClientError(err: Error & { code?: string }, socket: Duplex): void {
  if (err.code === 'ECONNRESET' || !socket.writable) {
    socket.destroy();
    return;
  }
  const status = err.code === 'HPE_HEADER_OVERFLOW' ? 431 : err.code === 'HPE_HEADERS_TIMEOUT' ? 408 : 400;
  const detail =
    status === 431
      ? 'the request line and headers are too large; shorten the query string'
      : status === 408
        ? 'the request headers took too long to arrive; send the request again'
        : 'the request is not valid HTTP';
  const code = status === 431 ? 'payload_too_large' : 'invalid_parameter';
  const body = JSON.stringify(problemBody(status, code, detail));
  socket.end(
    `HTTP/1.1 ${status} ${STATUS_CODES[status]}\r\n` +
      'Content-Type: application/problem+json\r\n' +
      `Content-Length: ${Buffer.byteLength(body)}\r\n` +
      'Connection: close\r\n\r\n' +
      body,
  );
}
