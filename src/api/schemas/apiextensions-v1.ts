// apiextensions/v1 definitions. The OpenAPI schema inside a CustomResourceDefinition is free-form JSON
// here (its own validation lives with the custom-resource code).
import { anyJson, arr, bool, bytes, int32, mapList, obj, str, time } from './build.js';
import { kind } from './meta.js';
import type { Schema } from '../schema.js';

const ref = (k: string) => `io.k8s.apiextensions-apiserver.pkg.apis.apiextensions.v1.${k}`;

const names = obj(ref('CustomResourceDefinitionNames'), {
  plural: str(), singular: str(), shortNames: arr(str()), kind: str(), listKind: str(), categories: arr(str()),
}, { required: ['plural', 'kind'] });
const serviceReference = obj(ref('ServiceReference'), {
  namespace: str(), name: str(), path: str(), port: int32(),
}, { required: ['namespace', 'name'] });

export const jsonSchemaProps: Schema = { ...obj(ref('JSONSchemaProps'), {}), ...anyJson };

export const customResourceDefinition = kind(ref('CustomResourceDefinition'), {
  spec: obj(ref('CustomResourceDefinitionSpec'), {
    group: str(),
    names,
    scope: str(),
    versions: arr(obj(ref('CustomResourceDefinitionVersion'), {
      name: str(),
      served: bool(),
      storage: bool(),
      deprecated: bool(),
      deprecationWarning: str(),
      schema: obj(ref('CustomResourceValidation'), { openAPIV3Schema: jsonSchemaProps }),
      subresources: obj(ref('CustomResourceSubresources'), {
        status: { ...obj(ref('CustomResourceSubresourceStatus'), {}), ...anyJson },
        scale: obj(ref('CustomResourceSubresourceScale'), {
          specReplicasPath: str(), statusReplicasPath: str(), labelSelectorPath: str(),
        }, { required: ['specReplicasPath', 'statusReplicasPath'] }),
      }),
      additionalPrinterColumns: arr(obj(ref('CustomResourceColumnDefinition'), {
        name: str(), type: str(), format: str(), description: str(), priority: int32(), jsonPath: str(),
      }, { required: ['name', 'type', 'jsonPath'] })),
    }, { required: ['name', 'served', 'storage'] })),
    conversion: obj(ref('CustomResourceConversion'), {
      strategy: str(),
      webhook: obj(ref('WebhookConversion'), {
        clientConfig: obj(ref('WebhookClientConfig'), { url: str(), service: serviceReference, caBundle: bytes() }),
        conversionReviewVersions: arr(str()),
      }, { required: ['conversionReviewVersions'] }),
    }, { required: ['strategy'] }),
    preserveUnknownFields: bool(),
  }, { required: ['group', 'names', 'scope', 'versions'] }),
  status: obj(ref('CustomResourceDefinitionStatus'), {
    conditions: mapList(obj(ref('CustomResourceDefinitionCondition'), {
      type: str(), status: str(), lastTransitionTime: time, reason: str(), message: str(),
    }, { required: ['type', 'status'] }), ['type']),
    acceptedNames: names,
    storedVersions: arr(str()),
  }),
}, { required: ['spec'] });
