// A component the API server runs itself (the controller manager, the scheduler) on a thread of its own: its own
// event loop and heap, so its informers, reconciles and scheduling cycles use the machine's other cores instead of
// running between the server's requests. It is the same client over HTTPS as inside the server's thread; the thread
// sends its log lines and its readiness, and stops when told. A thread that dies is started again after a pause
// that doubles up to a limit, as a supervisor restarts the reference's separate programs.
import { Worker } from 'node:worker_threads';
import type { ApiDomain } from '../api/naming.js';
import type { ControllerManagerOptions } from '../config/controller-manager-options.js';
import type { EmbeddedSchedulerOptions } from '../config/apiserver-options.js';
import type { CertificateAuthority } from '../pki/pki.js';
import type { Logger } from '../http/server.js';

/** what a thread is given: the component and everything it needs, as plain data */
export type ThreadInput = { url: string; ca: CertificateAuthority; domain: ApiDomain } & (
  | { kind: 'controller-manager'; options: ControllerManagerOptions; serviceAccountKeyPem?: string }
  | { kind: 'scheduler'; options: EmbeddedSchedulerOptions });

/** what a thread says */
export type ThreadMessage = { log: keyof Logger; message: string } | { ready: true } | { failed: string };

/** how long a thread has to stop before it is ended */
const stopWithinMs = 10_000;
const firstRestartMs = 1000;
const lastRestartMs = 30_000;

export function startComponentThread(input: ThreadInput, log: Logger): { ready: Promise<void>; stop(): Promise<void> } {
  let stopping = false, alive = false;
  let worker: Worker;
  let restartMs = firstRestartMs;
  let restartTimer: NodeJS.Timeout | undefined;
  let settle: { resolve(): void; reject(e: Error): void } | undefined;
  const ready = new Promise<void>((resolve, reject) => { settle = { resolve, reject }; });
  let stopped: () => void = () => {};

  const begin = () => {
    worker = new Worker(new URL('./component-thread-main.js', import.meta.url), { workerData: input });
    alive = true;
    let lastError: Error | undefined;
    worker.on('message', (m: ThreadMessage) => {
      if ('log' in m) log[m.log](m.message);
      else if ('ready' in m) { restartMs = firstRestartMs; settle?.resolve(); settle = undefined; }
      else if ('failed' in m) { settle?.reject(new Error(m.failed)); settle = undefined; }
    });
    worker.on('error', (e) => { lastError = e; });
    worker.on('exit', (code) => {
      alive = false;
      if (stopping) { stopped(); return; }
      const why = lastError?.stack ?? lastError?.message ?? `exit code ${code}`;
      log.error(`${input.kind}: its thread ended (${why}); starting it again in ${restartMs / 1000} s`);
      restartTimer = setTimeout(begin, restartMs);
      restartMs = Math.min(lastRestartMs, restartMs * 2);
    });
  };
  begin();

  return {
    ready,
    async stop() {
      stopping = true;
      clearTimeout(restartTimer);
      if (!alive) return;   // between a death and its restart: nothing runs
      const gone = new Promise<void>((resolve) => { stopped = resolve; });
      worker.postMessage('stop');
      const timer = setTimeout(() => void worker.terminate(), stopWithinMs);
      await gone;
      clearTimeout(timer);
    },
  };
}
