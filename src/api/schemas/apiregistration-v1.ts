// apiregistration/v1 definitions.
import { bool, bytes, int32, mapList, obj, patch, str, time } from './build.js';
import { kind } from './meta.js';

const ref = (k: string) => `io.k8s.kube-aggregator.pkg.apis.apiregistration.v1.${k}`;

export const apiService = kind(ref('APIService'), {
  spec: obj(ref('APIServiceSpec'), {
    service: obj(ref('ServiceReference'), { namespace: str(), name: str(), port: int32() }),
    group: str(),
    version: str(),
    insecureSkipTLSVerify: bool(),
    caBundle: bytes({ 'x-kubernetes-list-type': 'atomic' }),
    groupPriorityMinimum: int32(),
    versionPriority: int32(),
  }, { required: ['groupPriorityMinimum', 'versionPriority'] }),
  status: obj(ref('APIServiceStatus'), {
    conditions: mapList(obj(ref('APIServiceCondition'), {
      type: str(), status: str(), lastTransitionTime: time, reason: str(), message: str(),
    }, { required: ['type', 'status'] }), ['type'], patch('type')),
  }),
});
