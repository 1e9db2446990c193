// The start of a component's thread (see component-thread.ts): the component from its input, its log and its
// readiness sent to the server's thread, a stop when asked.
import { parentPort, workerData } from 'node:worker_threads';
import { naming } from '../api/naming.js';
import type { Logger } from '../http/server.js';
import type { ThreadInput, ThreadMessage } from './component-thread.js';

const input = workerData as ThreadInput;
const port = parentPort!;
const send = (m: ThreadMessage) => port.postMessage(m);
const log: Logger = {
  info: (message) => send({ log: 'info', message }),
  warn: (message) => send({ log: 'warn', message }),
  error: (message) => send({ log: 'error', message }),
};
const loopback = { url: input.url, ca: input.ca, names: naming(input.domain) };
const running = input.kind === 'controller-manager'
  ? (await import('./embedded-controller-manager.js')).startEmbeddedControllerManager({ ...loopback, options: input.options, log, serviceAccountKeyPem: input.serviceAccountKeyPem })
  : await (await import('./embedded-scheduler.js')).startEmbeddedScheduler({ ...loopback, options: input.options, log });
running.ready.then(() => send({ ready: true }), (e: Error) => send({ failed: e.message }));
port.on('message', (m) => {
  if (m !== 'stop') return;
  // the thread ends here, whatever the component left behind (a timer, an idle connection)
  void Promise.resolve(running.stop()).finally(() => process.exit(0));
});
