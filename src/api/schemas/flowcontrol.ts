// flowcontrol.apiserver v1beta3 and v1beta2 (API priority and fairness). The two versions differ only in
// the name of the limited level's share field: nominalConcurrencyShares (v1beta3), assuredConcurrencyShares (v1beta2).
import type { Schema } from '../schema.js';
import { apiRef, atomicList, bool, int32, mapList, obj, oneOf, setList, str, time } from './build.js';
import { kind } from './meta.js';

function definitions(version: 'v1beta2' | 'v1beta3') {
  const ref = (k: string) => apiRef(`flowcontrol.${version}`, k);
  const condition = (k: string) => mapList(obj(ref(k), {
    type: str(), status: str(), lastTransitionTime: time, reason: str(), message: str(),
  }, { required: ['type'] }), ['type']);

  const subject = obj(ref('Subject'), {
    kind: oneOf('Group', 'ServiceAccount', 'User'),
    user: obj(ref('UserSubject'), { name: str() }, { required: ['name'] }),
    group: obj(ref('GroupSubject'), { name: str() }, { required: ['name'] }),
    serviceAccount: obj(ref('ServiceAccountSubject'), { namespace: str(), name: str() }, { required: ['namespace', 'name'] }),
  }, { required: ['kind'] });

  const flowSchema = kind(ref('FlowSchema'), {
    spec: obj(ref('FlowSchemaSpec'), {
      priorityLevelConfiguration: obj(ref('PriorityLevelConfigurationReference'), { name: str() }, { required: ['name'] }),
      matchingPrecedence: int32(),
      distinguisherMethod: obj(ref('FlowDistinguisherMethod'), { type: oneOf('ByNamespace', 'ByUser') }, { required: ['type'] }),
      rules: atomicList(obj(ref('PolicyRulesWithSubjects'), {
        subjects: atomicList(subject),
        resourceRules: atomicList(obj(ref('ResourcePolicyRule'), {
          verbs: setList(str()), apiGroups: setList(str()), resources: setList(str()), clusterScope: bool(), namespaces: setList(str()),
        }, { required: ['verbs', 'apiGroups', 'resources'] })),
        nonResourceRules: atomicList(obj(ref('NonResourcePolicyRule'), {
          verbs: setList(str()), nonResourceURLs: setList(str()),
        }, { required: ['verbs', 'nonResourceURLs'] })),
      }, { required: ['subjects'] })),
    }, { required: ['priorityLevelConfiguration'] }),
    status: obj(ref('FlowSchemaStatus'), { conditions: condition('FlowSchemaCondition') }),
  });

  const shares = version === 'v1beta3' ? 'nominalConcurrencyShares' : 'assuredConcurrencyShares';
  const priorityLevelConfiguration = kind(ref('PriorityLevelConfiguration'), {
    spec: obj(ref('PriorityLevelConfigurationSpec'), {
      type: oneOf('Exempt', 'Limited'),
      limited: obj(ref('LimitedPriorityLevelConfiguration'), {
        [shares]: int32(),
        limitResponse: obj(ref('LimitResponse'), {
          type: oneOf('Queue', 'Reject'),
          queuing: obj(ref('QueuingConfiguration'), { queues: int32(), handSize: int32(), queueLengthLimit: int32() }),
        }, { required: ['type'] }),
        lendablePercent: int32(),
        borrowingLimitPercent: int32(),
      }),
    }, { required: ['type'] }),
    status: obj(ref('PriorityLevelConfigurationStatus'), { conditions: condition('PriorityLevelConfigurationCondition') }),
  });
  return { flowSchema, priorityLevelConfiguration };
}

const byVersion = { v1beta3: definitions('v1beta3'), v1beta2: definitions('v1beta2') };
type Version = keyof typeof byVersion;

export const flowSchema = (version: string): Schema => byVersion[version as Version].flowSchema;
export const priorityLevelConfiguration = (version: string): Schema => byVersion[version as Version].priorityLevelConfiguration;
