// node/v1 definitions.
import { apiRef, atomicList, obj, resourceList, str, stringMap } from './build.js';
import { kind } from './meta.js';
import { toleration } from './core-v1.js';

const ref = (k: string) => apiRef('node.v1', k);

export const runtimeClass = kind(ref('RuntimeClass'), {
  handler: str(),
  overhead: obj(ref('Overhead'), { podFixed: resourceList }),
  scheduling: obj(ref('Scheduling'), {
    nodeSelector: stringMap({ 'x-kubernetes-map-type': 'atomic' }),
    tolerations: atomicList(toleration),
  }),
}, { required: ['handler'] });
