// The agent's own /metrics (Prometheus, through prom-client): the process's figures, the pods and
// containers it runs, and every runtime operation counted and timed by kind, as the reference names
// them. One registry per agent process.

import { Counter, Gauge, Histogram, Registry, collectDefaultMetrics } from 'prom-client';
import type { ContainerRuntime } from './runtime/types.js';

export interface AgentMetrics {
  registry: Registry;
  /** the runtime with every call counted and timed */
  instrument(runtime: ContainerRuntime): ContainerRuntime;
  /** running pods and containers, read when scraped */
  observe(count: () => { pods: number; containers: Record<string, number> }): void;
  /** an HTTP request the agent's server answered */
  request(method: string, path: string, server: string): void;
  nodeName(name: string): void;
}

export function createAgentMetrics(): AgentMetrics {
  const registry = new Registry();
  collectDefaultMetrics({ register: registry });
  const operations = new Counter({ name: 'kubelet_runtime_operations_total', help: 'Runtime operations by type', labelNames: ['operation_type'], registers: [registry] });
  const errors = new Counter({ name: 'kubelet_runtime_operations_errors_total', help: 'Runtime operations that failed, by type', labelNames: ['operation_type'], registers: [registry] });
  const duration = new Histogram({
    name: 'kubelet_runtime_operations_duration_seconds', help: 'How long runtime operations took, by type', labelNames: ['operation_type'], registers: [registry],
    buckets: [0.005, 0.0125, 0.03125, 0.078125, 0.1953125, 0.48828125, 1.220703125, 3.0517578125, 7.62939453125, 19.073486328125, 47.6837158203125, 119.20928955078125],
  });
  const requests = new Counter({ name: 'kubelet_http_requests_total', help: 'Requests the agent\'s servers answered', labelNames: ['method', 'path', 'server_type'], registers: [registry] });
  const node = new Gauge({ name: 'kubelet_node_name', help: 'The node\'s name; the value is always 1', labelNames: ['node'], registers: [registry] });
  let count: (() => { pods: number; containers: Record<string, number> }) | undefined;
  new Gauge({ name: 'kubelet_running_pods', help: 'Pods with a running sandbox', registers: [registry], collect() { this.set(count?.().pods ?? 0); } });
  new Gauge({
    name: 'kubelet_running_containers', help: 'Containers by state', labelNames: ['container_state'], registers: [registry],
    collect() {
      this.reset();
      for (const [state, n] of Object.entries(count?.().containers ?? {})) this.set({ container_state: state }, n);
    },
  });

  /** operation names as the reference's (snake case) */
  const opName = (m: string) => m.replace(/[A-Z]/g, (c) => `_${c.toLowerCase()}`);
  return {
    registry,
    instrument(runtime) {
      const wrapped = { ...runtime } as Record<string, unknown>;
      for (const [name, fn] of Object.entries(runtime)) {
        if (typeof fn !== 'function' || ['close', 'logPath'].includes(name)) continue;
        const op = opName(name);
        wrapped[name] = async (...args: unknown[]) => {
          operations.inc({ operation_type: op });
          const end = duration.startTimer({ operation_type: op });
          try {
            return await (fn as (...a: unknown[]) => Promise<unknown>).apply(runtime, args);
          } catch (e) {
            errors.inc({ operation_type: op });
            throw e;
          } finally {
            end();
          }
        };
      }
      return wrapped as unknown as ContainerRuntime;
    },
    observe(f) {
      count = f;
    },
    request(method, path, server) {
      requests.inc({ method, path, server_type: server });
    },
    nodeName(name) {
      node.set({ node: name }, 1);
    },
  };
}
