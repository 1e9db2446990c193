// The resource metrics API (`metrics.<domain>/v1beta1`, the group metrics-server serves and `top` reads):
// NodeMetrics and PodMetrics, each a usage measured over a window that ends at a timestamp. Read-only kinds
// with no storage of their own, so their types live here rather than in the generated catalog.
import type { Naming } from './naming.js';

export const resourceMetricsVersion = 'v1beta1';

/** the group of the resource metrics API in the server's domain */
export const resourceMetricsGroup = (names: Naming) => names.group('metrics');

/** CPU in cores (a quantity such as `12345n`) and memory in bytes (such as `2048Ki`) */
export interface ResourceUsage { cpu: string; memory: string }

interface MetricsMeta {
  name: string;
  namespace?: string;
  creationTimestamp: string;
  labels?: Record<string, string>;
}

export interface NodeMetrics {
  apiVersion: string;
  kind: 'NodeMetrics';
  metadata: MetricsMeta;
  /** the end of the window the usage was measured over */
  timestamp: string;
  /** the window's length, a duration such as `15.2s` */
  window: string;
  usage: ResourceUsage;
}

export interface ContainerMetrics { name: string; usage: ResourceUsage }

export interface PodMetrics {
  apiVersion: string;
  kind: 'PodMetrics';
  metadata: MetricsMeta;
  timestamp: string;
  window: string;
  containers: ContainerMetrics[];
}

/** the discovery document of the group version: two read-only resources */
export function resourceMetricsResources() {
  return [
    { name: 'nodes', singularName: '', namespaced: false, kind: 'NodeMetrics', verbs: ['get', 'list'] },
    { name: 'pods', singularName: '', namespaced: true, kind: 'PodMetrics', verbs: ['get', 'list'] },
  ];
}
