// The real server for the benchmark: configuration from the environment, the production start path.
import { loadConfig } from '../server/config.ts';
import { startServer } from '../server/http.ts';

const running = await startServer(loadConfig());
process.on('SIGTERM', () => {
  void running.close().then(() => process.exit(0));
});
