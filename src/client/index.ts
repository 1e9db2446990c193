// The client library as a package entry: the REST client and its helpers, discovery of the server's domain and
// resources, exec credential plugins, informers, manifests, connections to pods, client-configuration files and
// the vendor naming of both API domains.

export {
  createClient, clientFromFile, resourcePath, retryOnConflict, watchEvents, readAll, statusError, patchContentTypes,
  ApiError, isNotFound, isConflict, isAlreadyExists, isGone, isForbidden, isInvalid, isClientClosed,
  type Client, type ClientOptions, type ResourceClient, type SubresourceClient, type ResourceRef, type ListOptions, type WatchOptions,
  type DeleteOptions, type PatchType, type WriteOptions, type WatchEvent, type ObjectList, type RequestSpec, type Response, type Connection,
} from './rest-client.js';
export { discover, type Discovery, type ApiResourceInfo, type ApiGroupInfo } from './discovery.js';
export { kindClient, discoveryOf, type KindOf } from './typed.js';
export { execCredentials, runPlugin, isInteractive, ExecPluginError, type Credential, type CredentialSource, type ExecIO } from './exec-credential.js';
export { startInformer, objectKey, type Informer, type InformerEvent, type InformerOptions } from './informer.js';
export { parseManifests, readManifestFiles, ManifestError, type Manifest } from './manifests.js';
export { execInPod, forwardPort, type ExecOptions, type ExecResult } from './streams.js';
export { tokenBucket, type RateLimiter } from './rate-limit.js';
export {
  loadClientConfig, resolveClientConfig, writeAdminClientConfig, ClientConfigError,
  type ClientConfig, type ConfigOverrides, type ExecConfig, type ExecClusterInfo, type Impersonation, type InteractiveMode,
} from '../config/client-config.js';
export {
  kubeconfigLoading, loadKubeconfig, mergedDocument, setCurrentContext, setEntry, deleteEntry, renameContext,
  type KubeconfigDoc, type KubeconfigLoading, type MergedKubeconfig,
} from '../config/kubeconfig.js';
export { naming, apiDomains, defaultApiDomain, isApiDomain, type ApiDomain, type Naming } from '../api/naming.js';
export type { ApiObject, ObjectMeta, OwnerReference, Status, StatusDetails, StatusCause } from '../api/meta.js';
/** the generated types of every built-in kind: `types.appsV1.Deployment`, `types.KindMap['apps/v1/Deployment']` */
export type * as types from '../api/types/index.js';
