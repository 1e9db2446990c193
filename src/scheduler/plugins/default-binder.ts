// Bind: the pod is assigned to its node through the pods/binding subresource.
import { errorStatus, type PluginSpec } from '../framework.js';

export const defaultBinder: PluginSpec = {
  name: 'DefaultBinder',
  create: (_args, handle) => ({
    name: 'DefaultBinder',
    async bind(_state, pod, nodeName) {
      try {
        await handle.writes.bind(pod.pod, nodeName);
        return undefined;
      } catch (e) {
        return errorStatus(`binding ${pod.key} to ${nodeName}: ${(e as Error).message}`);
      }
    },
  }),
};
