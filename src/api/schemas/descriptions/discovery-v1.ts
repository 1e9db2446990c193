// discovery/v1: endpoint slices.
import { kind, type DescriptionTable } from './common.js';

export default {
  EndpointSlice: kind('An EndpointSlice lists part of the endpoints behind a Service, of one address type; a Service may have several slices, linked by the label {labels}/service-name.', {
    addressType: 'The type of the addresses: "IPv4", "IPv6" or "FQDN". Cannot change.',
    endpoints: 'The endpoints; at most 1000.',
    ports: 'The ports every endpoint serves; at most 100. Empty means none, and a port without a number means all.',
  }),
  Endpoint: {
    '': 'One endpoint of a slice.',
    addresses: 'The addresses, of the slice\'s address type; consumers use the first. At least one, at most 100.',
    conditions: 'The endpoint\'s state.',
    hostname: 'The host name of the endpoint, a DNS label.',
    targetRef: 'The object behind the endpoint, usually a pod.',
    deprecatedTopology: 'Deprecated topology labels; use nodeName and zone.',
    nodeName: 'The node that hosts the endpoint.',
    zone: 'The zone the endpoint is in.',
    hints: 'Hints for how consumers should route to the endpoint.',
  },
  EndpointConditions: {
    '': 'The state of an endpoint.',
    ready: 'Whether the endpoint is ready for new connections; unset means unknown, which consumers take as ready. False while terminating.',
    serving: 'Whether the endpoint passes its readiness checks, whether or not it is terminating.',
    terminating: 'Whether the endpoint is shutting down.',
  },
  EndpointHints: { '': 'Routing hints of an endpoint.', forZones: 'The zones whose clients this endpoint should serve, for topology-aware routing.' },
  ForZone: { '': 'A zone an endpoint should serve.', name: 'The name of the zone.' },
  EndpointPort: {
    '': 'A port of the endpoints of a slice.',
    name: 'The name of the port, as in the Service; a DNS label, or empty for a single unnamed port.',
    protocol: 'The protocol of the port: "TCP" (the default), "UDP" or "SCTP".',
    port: 'The port number; unset means every port.',
    appProtocol: 'The application protocol of the port, such as a standard service name ("http") or a domain-prefixed name.',
  },
} satisfies DescriptionTable;
