// apiregistration/v1: API services, local and aggregated.
import { conditionFields, kind, type DescriptionTable } from './common.js';

export default {
  APIService: kind('An APIService serves one group version of the API, either from this server (local) or from another server the requests are proxied to (aggregated). Its name is <version>.<group>.', {
    spec: 'Which group version and who serves it.',
    status: 'Whether it is available.',
  }),
  APIServiceSpec: {
    '': 'Which group version an APIService serves and how it is reached.',
    service: 'The Service of the server behind the group version; empty for a group version this server serves itself.',
    group: 'The API group served.',
    version: 'The API version served, such as "v1".',
    insecureSkipTLSVerify: 'When true the backend\'s serving certificate is not verified. Discouraged: use caBundle.',
    caBundle: 'PEM-encoded certificate authorities to verify the backend\'s serving certificate with.',
    groupPriorityMinimum: 'The priority this version asks for its group: a group\'s priority is the highest any of its versions asks for, and discovery lists groups highest first.',
    versionPriority: 'The priority of this version within its group, highest first; equal priorities sort by version name.',
  },
  APIServiceStatus: { '': 'The state of an APIService.', conditions: 'The current conditions, such as Available.' },
  APIServiceCondition: { '': 'A condition of an APIService.', ...conditionFields('APIService', '"Available"') },
  ServiceReference: {
    '': 'The Service in front of an API server.',
    namespace: 'The namespace of the Service.',
    name: 'The name of the Service.',
    port: 'The port of the Service, between 1 and 65535. Defaults to 443.',
  },
} satisfies DescriptionTable;
