// networking/v1: ingresses, ingress classes and network policies.
import { kind, type DescriptionTable } from './common.js';

const protocol = 'The protocol: "TCP" (the default), "UDP" or "SCTP".';

export default {
  Ingress: kind('An Ingress routes HTTP and HTTPS traffic from outside the cluster to Services, by host name and path. An ingress controller implements it.', {
    spec: 'The routing rules.',
    status: 'The current state, such as the address of the load balancer.',
  }),
  IngressSpec: {
    '': 'How an Ingress routes traffic.',
    ingressClassName: 'The IngressClass whose controller implements this Ingress; the default class when unset.',
    defaultBackend: 'Where requests that match no rule go; the controller decides when unset.',
    tls: 'TLS settings: which hosts get which certificate. TLS is terminated at the ingress, on port 443.',
    rules: 'The rules, matched by host and then path; requests that match none go to the default backend.',
  },
  IngressRule: {
    '': 'The routes of one host.',
    host: 'The host name the rule applies to, as a DNS name without port; "*.example.com" matches one label. All hosts when empty.',
    http: 'The paths of the host and their backends.',
  },
  HTTPIngressRuleValue: { '': 'The HTTP routes of a host.', paths: 'The paths and their backends.' },
  HTTPIngressPath: {
    '': 'A path and the backend requests to it go to.',
    path: 'The path, starting with "/"; matched as pathType says.',
    pathType: 'How the path is matched: "Exact", "Prefix" (by path elements split by "/") or "ImplementationSpecific" (as the controller chooses).',
    backend: 'Where matching requests go.',
  },
  IngressBackend: {
    '': 'Where requests go: exactly one of service and resource.',
    service: 'A Service.',
    resource: 'Another object in the Ingress\'s namespace, such as a storage bucket.',
  },
  IngressServiceBackend: {
    '': 'A Service as an ingress backend.',
    name: 'The name of the Service, in the Ingress\'s namespace.',
    port: 'The port of the Service.',
  },
  ServiceBackendPort: {
    '': 'A port of a Service: exactly one of name and number.',
    name: 'The name of the port.',
    number: 'The number of the port.',
  },
  IngressTLS: {
    '': 'A TLS setting of an Ingress.',
    hosts: 'The hosts the certificate is for; they must match the hosts of the rules. Defaults to the controller\'s wildcard host.',
    secretName: 'The Secret, of type {labels}/tls, holding the certificate and key. May be empty when the controller uses SNI without one.',
  },
  IngressStatus: { '': 'The state of an Ingress.', loadBalancer: 'The load balancer\'s entry points.' },
  IngressLoadBalancerStatus: { '': 'The state of an Ingress\'s load balancer.', ingress: 'Its entry points.' },
  IngressLoadBalancerIngress: {
    '': 'An entry point of an Ingress\'s load balancer.',
    ip: 'Its IP address.',
    hostname: 'Its DNS name.',
    ports: 'The state of each port on it.',
  },
  IngressPortStatus: {
    '': 'The state of a port of an Ingress\'s load balancer.',
    port: 'The port number.',
    protocol,
    error: 'Why the port is not working, as a CamelCase code; empty when it works.',
  },
  IngressClass: kind('An IngressClass names an ingress controller and its settings; Ingresses choose one by name. The annotation ingressclass.{labels}/is-default-class marks the default.', {
    spec: 'The controller and its parameters.',
  }),
  IngressClassSpec: {
    '': 'The controller of an IngressClass.',
    controller: 'The name of the controller, such as "example.com/ingress-controller". Cannot change.',
    parameters: 'An object with further settings for the controller.',
  },
  IngressClassParametersReference: {
    '': 'The object holding an ingress controller\'s settings.',
    apiGroup: 'The API group of the object; empty for the core group.',
    kind: 'The kind of the object.',
    name: 'The name of the object.',
    scope: 'Whether the object is "Cluster"-scoped (the default) or "Namespace"-scoped.',
    namespace: 'The namespace of the object; required when scope is Namespace.',
  },
  NetworkPolicy: kind('A NetworkPolicy says which traffic may reach and leave the pods it selects; a network plugin that supports policies enforces it.', {
    spec: 'The pods and the traffic allowed.',
    status: 'The state of the policy as its network plugin reports it (alpha: the NetworkPolicyStatus feature gate, off by default, which drops it).',
  }),
  NetworkPolicyStatus: {
    '': 'The state of a NetworkPolicy.',
    conditions: 'Conditions the network plugin reports about the policy, such as whether it is enforced.',
  },
  NetworkPolicySpec: {
    '': 'What a NetworkPolicy allows.',
    podSelector: 'The pods, in the policy\'s namespace, the policy applies to; empty selects all of them.',
    ingress: 'Incoming traffic allowed, added to what other policies allow. No rules allows no incoming traffic.',
    egress: 'Outgoing traffic allowed, added to what other policies allow. No rules allows no outgoing traffic.',
    policyTypes: 'Which directions the policy isolates: "Ingress", "Egress" or both. Defaults to Ingress, plus Egress when there are egress rules.',
  },
  NetworkPolicyIngressRule: {
    '': 'Incoming traffic allowed: from any of the peers, to any of the ports.',
    ports: 'The ports; every port when empty.',
    from: 'The sources; every source when empty.',
  },
  NetworkPolicyEgressRule: {
    '': 'Outgoing traffic allowed: to any of the peers, on any of the ports.',
    ports: 'The ports; every port when empty.',
    to: 'The destinations; every destination when empty.',
  },
  NetworkPolicyPeer: {
    '': 'A source or destination of traffic: pods by selectors, or an address range.',
    podSelector: 'Pods, in the policy\'s namespace or in the namespaces namespaceSelector chooses.',
    namespaceSelector: 'Namespaces, by their labels; with podSelector, pods in them, otherwise all of their pods.',
    ipBlock: 'An address range; cannot be combined with the selectors.',
  },
  NetworkPolicyPort: {
    '': 'A port traffic may use.',
    protocol,
    port: 'The port, by number or by a pod\'s port name; every port when unset.',
    endPort: 'The last port of a range starting at port; port must then be a number not greater than it.',
  },
  IPBlock: {
    '': 'A range of IP addresses.',
    cidr: 'The range, such as "192.168.1.0/24" or "2001:db8::/64".',
    except: 'Ranges inside cidr that are left out.',
  },
} satisfies DescriptionTable;
