// networking/v1 definitions.
import { apiRef, arr, atomicList, int32, intOrString, mapList, obj, oneOf, patch, str } from './build.js';
import { condition, kind, labelSelector } from './meta.js';
import { typedLocalObjectReference } from './core-v1.js';

const ref = (k: string) => apiRef('networking.v1', k);
const protocol = oneOf('SCTP', 'TCP', 'UDP');

const ingressBackend = obj(ref('IngressBackend'), {
  service: obj(ref('IngressServiceBackend'), {
    name: str(),
    port: obj(ref('ServiceBackendPort'), { name: str(), number: int32() }),
  }, { required: ['name'] }),
  resource: typedLocalObjectReference,
});

export const ingress = kind(ref('Ingress'), {
  spec: obj(ref('IngressSpec'), {
    ingressClassName: str(),
    defaultBackend: ingressBackend,
    tls: atomicList(obj(ref('IngressTLS'), { hosts: atomicList(str()), secretName: str() })),
    rules: atomicList(obj(ref('IngressRule'), {
      host: str(),
      http: obj(ref('HTTPIngressRuleValue'), {
        paths: atomicList(obj(ref('HTTPIngressPath'), {
          path: str(),
          pathType: oneOf('Exact', 'ImplementationSpecific', 'Prefix'),
          backend: ingressBackend,
        }, { required: ['pathType', 'backend'] })),
      }, { required: ['paths'] }),
    })),
  }),
  status: obj(ref('IngressStatus'), {
    loadBalancer: obj(ref('IngressLoadBalancerStatus'), {
      ingress: arr(obj(ref('IngressLoadBalancerIngress'), {
        ip: str(),
        hostname: str(),
        ports: atomicList(obj(ref('IngressPortStatus'), { port: int32(), protocol, error: str() }, { required: ['port', 'protocol'] })),
      })),
    }),
  }),
});

export const ingressClass = kind(ref('IngressClass'), {
  spec: obj(ref('IngressClassSpec'), {
    controller: str(),
    parameters: obj(ref('IngressClassParametersReference'), {
      apiGroup: str(), kind: str(), name: str(), scope: str(), namespace: str(),
    }, { required: ['kind', 'name'] }),
  }),
});

const networkPolicyPort = obj(ref('NetworkPolicyPort'), { protocol, port: intOrString, endPort: int32() });
const networkPolicyPeer = obj(ref('NetworkPolicyPeer'), {
  podSelector: labelSelector,
  namespaceSelector: labelSelector,
  ipBlock: obj(ref('IPBlock'), { cidr: str(), except: arr(str()) }, { required: ['cidr'] }),
});
export const networkPolicy = kind(ref('NetworkPolicy'), {
  spec: obj(ref('NetworkPolicySpec'), {
    podSelector: labelSelector,
    ingress: arr(obj(ref('NetworkPolicyIngressRule'), { ports: arr(networkPolicyPort), from: arr(networkPolicyPeer) })),
    egress: arr(obj(ref('NetworkPolicyEgressRule'), { ports: arr(networkPolicyPort), to: arr(networkPolicyPeer) })),
    policyTypes: arr(oneOf('Egress', 'Ingress')),
  }, { required: ['podSelector'] }),
  status: obj(ref('NetworkPolicyStatus'), { conditions: mapList(condition, ['type'], patch('type')) }),
});
