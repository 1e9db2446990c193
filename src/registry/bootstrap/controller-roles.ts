// The roles of the controllers, one per controller (`system:controller:<name>`): what each may do when the controller
// manager runs it as a service account of its own (--use-service-account-credentials). The set and the rules are
// the reference's of 1.27, the groups named in the server's domain.
import type { Naming } from '../../api/naming.js';
import type { PolicyRule } from '../../api/auth.js';

import { eventsRule, read, rule } from './rules.js';

const listWatch = ['list', 'watch'];
const all = ['create', 'delete', 'get', 'list', 'patch', 'update', 'watch'];

/** the controllers' roles by name (without the `system:controller:` prefix), each with its rules */
export function controllerRoles(names: Naming): Record<string, PolicyRule[]> {
  const g = names.group;
  const apps = 'apps', batch = 'batch', extensions = 'extensions', policy = 'policy', autoscaling = 'autoscaling';
  const storage = g('storage'), certificates = g('certificates'), discovery = g('discovery');
  const events = eventsRule(names);
  // most controllers record events: their roles end with the right to
  const withEvents = (rules: PolicyRule[]) => [...rules, events];
  const signer = (s: string) => `${names.labelDomain}/${s}`;
  return {
    'attachdetach-controller': withEvents([
      rule(listWatch, [''], ['persistentvolumeclaims', 'persistentvolumes']),
      rule(read, [''], ['nodes']),
      rule(['patch', 'update'], [''], ['nodes/status']),
      rule(listWatch, [''], ['pods']),
      rule(['create', 'delete', 'get', 'list', 'watch'], [storage], ['volumeattachments']),
      rule(read, [storage], ['csidrivers']),
      rule(read, [storage], ['csinodes']),
    ]),
    'certificate-controller': withEvents([
      rule(['delete', 'get', 'list', 'watch'], [certificates], ['certificatesigningrequests']),
      rule(['update'], [certificates], ['certificatesigningrequests/approval', 'certificatesigningrequests/status']),
      rule(['approve'], [certificates], ['signers'], [signer('kube-apiserver-client-kubelet')]),
      rule(['sign'], [certificates], ['signers'],
        ['kube-apiserver-client', 'kube-apiserver-client-kubelet', 'kubelet-serving', 'legacy-unknown'].map(signer)),
      rule(['create'], [g('authorization')], ['subjectaccessreviews']),
    ]),
    'clusterrole-aggregation-controller': [
      rule(['escalate', 'get', 'list', 'patch', 'update', 'watch'], [g('rbac.authorization')], ['clusterroles']),
    ],
    'cronjob-controller': withEvents([
      rule(['get', 'list', 'update', 'watch'], [batch], ['cronjobs']),
      rule(all, [batch], ['jobs']),
      rule(['update'], [batch], ['cronjobs/status']),
      rule(['update'], [batch], ['cronjobs/finalizers']),
      rule(['delete', 'list', 'watch'], [''], ['pods']),
    ]),
    'daemon-set-controller': withEvents([
      rule(read, [apps, extensions], ['daemonsets']),
      rule(['update'], [apps, extensions], ['daemonsets/status']),
      rule(['update'], [apps, extensions], ['daemonsets/finalizers']),
      rule(listWatch, [''], ['nodes']),
      rule(['create', 'delete', 'list', 'patch', 'watch'], [''], ['pods']),
      rule(['create'], [''], ['pods/binding']),
      rule(all, [apps], ['controllerrevisions']),
    ]),
    'deployment-controller': withEvents([
      rule(['get', 'list', 'update', 'watch'], [apps, extensions], ['deployments']),
      rule(['update'], [apps, extensions], ['deployments/status']),
      rule(['update'], [apps, extensions], ['deployments/finalizers']),
      rule(all, [apps, extensions], ['replicasets']),
      rule(['get', 'list', 'update', 'watch'], [''], ['pods']),
    ]),
    'disruption-controller': withEvents([
      rule(read, [apps, extensions], ['deployments']),
      rule(read, [apps, extensions], ['replicasets']),
      rule(read, [''], ['replicationcontrollers']),
      rule(read, [policy], ['poddisruptionbudgets']),
      rule(read, [apps], ['statefulsets']),
      rule(['update'], [policy], ['poddisruptionbudgets/status']),
      rule(['patch', 'update'], [''], ['pods/status']),
      rule(['get'], ['*'], ['*/scale']),
    ]),
    'endpoint-controller': withEvents([
      rule(read, [''], ['pods', 'services']),
      rule(['create', 'delete', 'get', 'list', 'update', 'watch'], [''], ['endpoints']),
      rule(['create'], [''], ['endpoints/restricted']),
    ]),
    'endpointslice-controller': withEvents([
      rule(read, [''], ['nodes', 'pods', 'services']),
      rule(['update'], [''], ['services/finalizers']),
      rule(['create', 'delete', 'get', 'list', 'update', 'watch'], [discovery], ['endpointslices']),
    ]),
    'endpointslicemirroring-controller': withEvents([
      rule(read, [''], ['endpoints', 'services']),
      rule(['update'], [''], ['services/finalizers']),
      rule(['update'], [''], ['endpoints/finalizers']),
      rule(['create', 'delete', 'get', 'list', 'update', 'watch'], [discovery], ['endpointslices']),
    ]),
    'ephemeral-volume-controller': withEvents([
      rule(read, [''], ['pods']),
      rule(['update'], [''], ['pods/finalizers']),
      rule(['create', 'get', 'list', 'watch'], [''], ['persistentvolumeclaims']),
    ]),
    'expand-controller': withEvents([
      rule(['get', 'list', 'patch', 'update', 'watch'], [''], ['persistentvolumes']),
      rule(['patch', 'update'], [''], ['persistentvolumeclaims/status']),
      rule(read, [''], ['persistentvolumeclaims']),
    ]),
    'generic-garbage-collector': withEvents([
      rule(['delete', 'get', 'list', 'patch', 'update', 'watch'], ['*'], ['*']),
    ]),
    'horizontal-pod-autoscaler': withEvents([
      rule(read, [autoscaling], ['horizontalpodautoscalers']),
      rule(['update'], [autoscaling], ['horizontalpodautoscalers/status']),
      rule(['get', 'update'], ['*'], ['*/scale']),
      rule(listWatch, [''], ['pods']),
      rule(listWatch, [g('metrics')], ['pods']),
      rule(read, [g('custom.metrics')], ['*']),
      rule(read, [g('external.metrics')], ['*']),
    ]),
    'job-controller': withEvents([
      rule(['get', 'list', 'patch', 'update', 'watch'], [batch], ['jobs']),
      rule(['update'], [batch], ['jobs/status']),
      rule(['update'], [batch], ['jobs/finalizers']),
      rule(['create', 'delete', 'list', 'patch', 'watch'], [''], ['pods']),
    ]),
    'namespace-controller': [
      rule(['delete', 'get', 'list', 'watch'], [''], ['namespaces']),
      rule(['update'], [''], ['namespaces/finalize', 'namespaces/status']),
      rule(['delete', 'deletecollection', 'get', 'list', 'watch'], ['*'], ['*']),
    ],
    'node-controller': withEvents([
      rule(['delete', 'get', 'list', 'patch', 'update', 'watch'], [''], ['nodes']),
      rule(['patch', 'update'], [''], ['nodes/status']),
      rule(['patch', 'update'], [''], ['pods/status']),
      rule(['delete', 'get', 'list', 'watch'], [''], ['pods']),
    ]),
    'persistent-volume-binder': withEvents([
      rule(['create', 'delete', 'get', 'list', 'update', 'watch'], [''], ['persistentvolumes']),
      rule(['update'], [''], ['persistentvolumes/status']),
      rule(['get', 'list', 'update', 'watch'], [''], ['persistentvolumeclaims']),
      rule(['update'], [''], ['persistentvolumeclaims/status']),
      rule(['create', 'delete', 'get', 'list', 'watch'], [''], ['pods']),
      rule(read, [storage], ['storageclasses']),
      rule(listWatch, [''], ['nodes']),
      rule(['watch'], [''], ['events']),
    ]),
    'pod-garbage-collector': [
      rule(['delete', 'list', 'watch'], [''], ['pods']),
      rule(read, [''], ['nodes']),
      rule(['patch'], [''], ['pods/status']),
    ],
    'pv-protection-controller': withEvents([
      rule(['get', 'list', 'update', 'watch'], [''], ['persistentvolumes']),
    ]),
    'pvc-protection-controller': withEvents([
      rule(['get', 'list', 'update', 'watch'], [''], ['persistentvolumeclaims']),
      rule(read, [''], ['pods']),
    ]),
    'replicaset-controller': withEvents([
      rule(['get', 'list', 'update', 'watch'], [apps, extensions], ['replicasets']),
      rule(['update'], [apps, extensions], ['replicasets/status']),
      rule(['update'], [apps, extensions], ['replicasets/finalizers']),
      rule(['create', 'delete', 'list', 'patch', 'watch'], [''], ['pods']),
    ]),
    'replication-controller': withEvents([
      rule(['get', 'list', 'update', 'watch'], [''], ['replicationcontrollers']),
      rule(['update'], [''], ['replicationcontrollers/status']),
      rule(['update'], [''], ['replicationcontrollers/finalizers']),
      rule(['create', 'delete', 'list', 'patch', 'watch'], [''], ['pods']),
    ]),
    'resourcequota-controller': withEvents([
      rule(listWatch, ['*'], ['*']),
      rule(['update'], [''], ['resourcequotas/status']),
    ]),
    'root-ca-cert-publisher': withEvents([
      rule(['create', 'update'], [''], ['configmaps']),
    ]),
    'route-controller': withEvents([
      rule(listWatch, [''], ['nodes']),
      rule(['patch'], [''], ['nodes/status']),
    ]),
    'service-account-controller': withEvents([
      rule(['create'], [''], ['serviceaccounts']),
    ]),
    'service-controller': withEvents([
      rule(read, [''], ['services']),
      rule(['patch', 'update'], [''], ['services/status']),
      rule(listWatch, [''], ['nodes']),
    ]),
    'statefulset-controller': withEvents([
      rule(listWatch, [''], ['pods']),
      rule(read, [apps], ['statefulsets']),
      rule(['update'], [apps], ['statefulsets/status']),
      rule(['update'], [apps], ['statefulsets/finalizers']),
      rule(['create', 'delete', 'get', 'patch', 'update'], [''], ['pods']),
      rule(all, [apps], ['controllerrevisions']),
      rule(['create', 'get', 'list', 'watch'], [''], ['persistentvolumeclaims']),
      rule(['delete', 'update'], [''], ['persistentvolumeclaims']),
      rule(['update'], [''], ['pods/finalizers']),
    ]),
    'ttl-after-finished-controller': withEvents([
      rule(['delete', 'get', 'list', 'watch'], [batch], ['jobs']),
    ]),
    'ttl-controller': withEvents([
      rule(['list', 'patch', 'update', 'watch'], [''], ['nodes']),
    ]),
  };
}
