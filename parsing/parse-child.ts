// The process one parse runs in (started by runner.ts): it receives one file over IPC, sends back what
// extractText made of it and exits. Only this process loads the parsers.
import { Worker } from 'node:worker_threads';
import { DEFAULT_EXTRACT_LIMITS, extractText } from './extract.ts';

interface ParseRequest {
  file: { content: Uint8Array; content_type: string; filename: string };
  timeoutMs: number;
}

// The parent enforces the limits; should it die, nobody would, and a parse stuck in a loop never reads
// the IPC channel closing. A thread of its own ends the process then, whatever the main thread does.
const guard = new Worker(
  `const { workerData } = require('node:worker_threads');
  setInterval(() => {
    if (process.ppid !== workerData) process.kill(process.pid, 'SIGKILL');
  }, 250);`,
  { eval: true, workerData: process.ppid },
);
guard.unref();

process.on('disconnect', () => process.exit(0));
process.once('message', async (request: ParseRequest) => {
  const { content, content_type, filename } = request.file;
  const file = {
    content: Buffer.from(content.buffer, content.byteOffset, content.byteLength),
    content_type,
    filename,
  };
  // The parent's SIGKILL at timeoutMs decides; this later timeout never fires first.
  const outcome = await extractText(file, { ...DEFAULT_EXTRACT_LIMITS, timeoutMs: request.timeoutMs + 5000 });
  process.send!(outcome, () => process.exit(0));
});
process.send!({ ready: true });
