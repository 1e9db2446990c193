// The ReplicationController controller: the ReplicaSet engine with the older kind's map selector
// (which defaults to the template's labels).
import { replicaController } from './replicaset.js';

export const replicationControllerController = replicaController({
  name: 'replicationcontroller', component: 'replication-controller', kind: 'ReplicationController', apiVersion: 'v1',
  ref: (ctx) => ctx.refs.replicationControllers,
  selector: (rc) => {
    const labels = rc.spec.selector ?? rc.spec.template?.metadata?.labels;
    return labels && Object.keys(labels).length ? { matchLabels: labels } : undefined;
  },
  replicas: (rc) => rc.spec.replicas ?? 1,
  minReadySeconds: (rc) => rc.spec.minReadySeconds ?? 0,
  template: (rc) => rc.spec.template,
  status: (rc) => rc.status,
});
