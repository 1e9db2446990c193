// discovery/v1 definitions.
import { apiRef, atomicList, atomicObj, bool, int32, obj, oneOf, setList, str, stringMap } from './build.js';
import { kind } from './meta.js';
import { objectReference } from './core-v1.js';

const ref = (k: string) => apiRef('discovery.v1', k);

export const endpointSlice = kind(ref('EndpointSlice'), {
  addressType: oneOf('FQDN', 'IPv4', 'IPv6'),
  endpoints: atomicList(obj(ref('Endpoint'), {
    addresses: setList(str()),
    conditions: obj(ref('EndpointConditions'), { ready: bool(), serving: bool(), terminating: bool() }),
    hostname: str(),
    targetRef: objectReference,
    deprecatedTopology: stringMap(),
    nodeName: str(),
    zone: str(),
    hints: obj(ref('EndpointHints'), {
      forZones: atomicList(obj(ref('ForZone'), { name: str() }, { required: ['name'] })),
    }),
  }, { required: ['addresses'] })),
  ports: atomicList(atomicObj(ref('EndpointPort'), {
    name: str(), protocol: str(), port: int32(), appProtocol: str(),
  })),
}, { required: ['addressType', 'endpoints'] });
