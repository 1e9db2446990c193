// Who is asking and what they may do: the user, the request an authenticator reads, and the authorizer's
// interface. Authentication and authorization implement these; the pipeline, admission and reviews use them.
import type { IncomingHttpHeaders } from 'node:http';
import type { PeerCertificate } from 'node:tls';

export interface UserInfo {
  username: string;
  uid?: string;
  groups: string[];
  extra?: Record<string, string[]>;
}

export interface AuthnRequest {
  headers: IncomingHttpHeaders;
  /** a bearer token given as it is (a TokenReview's), read from no header */
  token?: string;
  /** the headers as sent, name and value alternating: a repeated header's values stay apart (headers joins them) */
  rawHeaders?: string[];
  /** the verified client certificate, when one was presented and chains to the client CA */
  peerCertificate?: PeerCertificate;
  /** a client certificate was presented but did not verify */
  peerCertificateError?: string;
  /** audiences a token must be meant for (a TokenReview's spec.audiences); default: the API audiences */
  audiences?: string[];
}

/**
 * a user, and for tokens the requested audiences the token is good for; what the credential tells the audit log
 * (a legacy or stale token) and the client (a Warning) about itself goes with it
 */
export type AuthnResult = UserInfo & {
  audiences?: string[]; auditAnnotations?: Record<string, string>; warnings?: string[];
  /** the WebSocket subprotocols the handshake goes on with, once the one carrying the token is taken out */
  webSocketProtocols?: string;
};

export type Decision = 'Allow' | 'Deny' | 'NoOpinion';

export interface AuthzAttributes {
  user: UserInfo;
  verb: string;
  isResourceRequest: boolean;
  path: string;
  apiGroup: string;
  apiVersion: string;
  namespace: string;
  resource: string;
  subresource: string;
  name: string;
}

export interface PolicyRule {
  verbs: string[];
  apiGroups?: string[];
  resources?: string[];
  resourceNames?: string[];
  nonResourceURLs?: string[];
}

/** what a user may do in a namespace, as SelfSubjectRulesReview reports it */
export interface RulesAnswer {
  resourceRules: Array<{ verbs: string[]; apiGroups?: string[]; resources?: string[]; resourceNames?: string[] }>;
  nonResourceRules: Array<{ verbs: string[]; nonResourceURLs?: string[] }>;
  incomplete: boolean;
  evaluationError?: string;
}

/** an authorizer's answer; `error` says it could not decide (its service failed), which a refusal then reports */
export interface AuthzAnswer { decision: Decision; reason?: string; error?: string }

export interface Authorizer {
  authorize(a: AuthzAttributes): Promise<AuthzAnswer> | AuthzAnswer;
  /** the rules behind the decisions, for authorizers that can list them */
  rulesFor?(user: UserInfo, namespace: string): RulesAnswer;
}

/** members of this group may do anything */
export const privilegedGroup = 'system:masters';

/** a token audience check: the requested audiences the token's audiences cover (empty when none) */
export const intersect = (wanted: readonly string[], have: readonly string[]) => wanted.filter(a => have.includes(a));

/** what a bound service-account token names: its account, and the pod or secret whose deletion ends it */
export interface ObjectRef { name: string; uid: string }

/** signs service-account tokens (TokenRequest) */
export interface ServiceAccountTokenSigner {
  apiAudiences: string[];
  /** signs a token; returns it with its expiry (epoch seconds) */
  /** warnAfterSeconds: the token lives expirationSeconds, but its users should have read a new one after this */
  sign(t: { namespace: string; serviceAccount: ObjectRef; pod?: ObjectRef; secret?: ObjectRef; audiences: string[]; expirationSeconds: number; warnAfterSeconds?: number }): Promise<{ token: string; exp: number }>;
}
