// API priority and fairness as the rest of the server sees it: the configuration objects the flow-control filter
// reads (never the registry itself), the few writes that keep the default objects in place, and what a request
// looks like to the classifier.
import type { FlowSchema, PriorityLevelConfiguration } from './types/flowcontrol-v1beta3.js';
import type { UserInfo } from './auth.js';
import type { RequestInfo } from './request.js';

export type { FlowSchema, PriorityLevelConfiguration };

export type FlowControlResource = 'flowschemas' | 'prioritylevelconfigurations';

/** the stored configuration, read from the watch cache */
export interface FlowControlConfig {
  /** changes whenever a FlowSchema or PriorityLevelConfiguration does, so readers rebuild only then */
  readonly generation: number;
  readonly flowSchemas: readonly FlowSchema[];
  readonly priorityLevels: readonly PriorityLevelConfiguration[];
}

/** read-only access to the flow-control objects and to the sizes lists are estimated by */
export interface FlowControlSource {
  /** resolves once the stored configuration has been read */
  readonly ready: Promise<void>;
  config(): FlowControlConfig;
  /** calls back after each change of the configuration; returns the function that stops it */
  onChange(listener: () => void): () => void;
  /** how many objects of a resource are stored (a list's cost); undefined when the server does not know */
  objectCount(apiGroup: string, resource: string): number | undefined;
}

/** the writes that keep the mandatory and suggested objects in place, without admission */
export interface FlowControlWriter {
  create(resource: FlowControlResource, obj: FlowSchema | PriorityLevelConfiguration): Promise<void>;
  /** read-modify-write of the object or its status, retried on conflict; `change` returns undefined to write nothing */
  update<T extends FlowSchema | PriorityLevelConfiguration>(resource: FlowControlResource, name: string, subresource: '' | 'status',
    change: (current: T) => T | undefined): Promise<void>;
}

/** what the classifier sees of a request */
export interface FlowRequest {
  user: UserInfo;
  info: RequestInfo;
  query: URLSearchParams;
}
