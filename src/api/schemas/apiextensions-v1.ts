// apiextensions/v1 definitions. The OpenAPI schema inside a CustomResourceDefinition is described field by
// field (JSONSchemaProps refers to itself); whether it is a valid structural schema is checked by the
// custom-resource code.
import { anyJson, arr, atomicList, bool, bytes, double, int32, int64, mapList, mapOf, obj, patch, str, time } from './build.js';
import { kind } from './meta.js';
import type { Schema } from '../schema.js';

const ref = (k: string) => `io.k8s.apiextensions-apiserver.pkg.apis.apiextensions.v1.${k}`;

const names = obj(ref('CustomResourceDefinitionNames'), {
  plural: str(), singular: str(), shortNames: arr(str()), kind: str(), listKind: str(), categories: arr(str()),
}, { required: ['plural', 'kind'] });
const serviceReference = obj(ref('ServiceReference'), {
  namespace: str(), name: str(), path: str(), port: int32(),
}, { required: ['namespace', 'name'] });

/** any JSON value, and the unions whose JSON form is whichever member is set: no type is fixed */
const untyped = (k: string): Schema => ({ ...anyJson, 'x-ref': ref(k) });
const json = untyped('JSON');
const schemaOrBool = untyped('JSONSchemaPropsOrBool');

export const jsonSchemaProps: Schema = obj(ref('JSONSchemaProps'), {});
const validationRule = obj(ref('ValidationRule'), { rule: str(), message: str(), messageExpression: str() }, { required: ['rule'] });
Object.assign(jsonSchemaProps.properties!, {
  id: str(), $schema: str(), $ref: str(), description: str(), type: str(), format: str(), title: str(),
  default: json, maximum: double(), exclusiveMaximum: bool(), minimum: double(), exclusiveMinimum: bool(),
  maxLength: int64(), minLength: int64(), pattern: str(), maxItems: int64(), minItems: int64(), uniqueItems: bool(),
  multipleOf: double(), enum: arr(json), maxProperties: int64(), minProperties: int64(), required: arr(str()),
  items: untyped('JSONSchemaPropsOrArray'),
  allOf: arr(jsonSchemaProps), oneOf: arr(jsonSchemaProps), anyOf: arr(jsonSchemaProps), not: jsonSchemaProps,
  properties: mapOf(jsonSchemaProps),
  additionalProperties: schemaOrBool,
  patternProperties: mapOf(jsonSchemaProps),
  dependencies: mapOf(untyped('JSONSchemaPropsOrStringArray')),
  additionalItems: schemaOrBool,
  definitions: mapOf(jsonSchemaProps),
  externalDocs: obj(ref('ExternalDocumentation'), { description: str(), url: str() }),
  example: json,
  nullable: bool(),
  'x-kubernetes-preserve-unknown-fields': bool(),
  'x-kubernetes-embedded-resource': bool(),
  'x-kubernetes-int-or-string': bool(),
  'x-kubernetes-list-map-keys': atomicList(str()),
  'x-kubernetes-list-type': str(),
  'x-kubernetes-map-type': str(),
  'x-kubernetes-validations': mapList(validationRule, ['rule'], patch('rule')),
} satisfies Record<string, Schema>);

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
