// The resource metrics API's kinds (metrics.<domain>/v1beta1) as the catalog writes schemas, under the reference's
// definition names, for the OpenAPI documents a metrics server publishes. Read-only kinds, never stored.
import type { Schema } from '../schema.js';
import { arr, duration, obj, resourceList, str, time } from './build.js';
import { listSchema } from './definitions.js';
import { objectMeta } from './meta.js';

const ref = (kind: string) => `io.k8s.metrics.pkg.apis.metrics.v1beta1.${kind}`;

export const containerMetrics = obj(ref('ContainerMetrics'), { name: str(), usage: resourceList }, { required: ['name', 'usage'] });

const measured = { apiVersion: str(), kind: str(), metadata: objectMeta, timestamp: time, window: duration };

export const nodeMetrics = obj(ref('NodeMetrics'), { ...measured, usage: resourceList }, { required: ['timestamp', 'window', 'usage'] });

export const podMetrics = obj(ref('PodMetrics'), { ...measured, containers: arr(containerMetrics) }, { required: ['timestamp', 'window', 'containers'] });

/** the kinds with their list kinds, by kind */
export const resourceMetricsSchemas = (): Record<string, Schema> => ({
  NodeMetrics: nodeMetrics, NodeMetricsList: listSchema(nodeMetrics, 'NodeMetrics', 'NodeMetricsList'),
  PodMetrics: podMetrics, PodMetricsList: listSchema(podMetrics, 'PodMetrics', 'PodMetricsList'),
});
