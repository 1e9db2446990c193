// autoscaling: HorizontalPodAutoscaler at v2 (preferred, stored) and v1.
import type { ResourceDefinition } from '../types.js';
import * as s from '../../api/schemas/autoscaling.js';
import { define, status } from './define.js';
import * as c from './columns.js';

export const autoscalingResources: ResourceDefinition[] = [
  define({
    group: 'autoscaling', resource: 'horizontalpodautoscalers', kind: 'HorizontalPodAutoscaler', shortNames: ['hpa'],
    categories: ['all'], namespaced: true,
    versions: [
      { name: 'v2', served: true, storage: true, schema: s.horizontalPodAutoscalerV2 },
      { name: 'v1', served: true, storage: false, schema: s.horizontalPodAutoscalerV1 },
    ],
    subresources: status, columns: c.hpaColumns,
  }),
];
