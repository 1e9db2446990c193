// authentication/v1 (and v1beta1, whose SelfSubjectReview is the same): tokens and who a request is from.
import { kind, type DescriptionTable } from './common.js';

export default {
  TokenReview: kind('A TokenReview asks the server to authenticate a bearer token and say whose it is. It is answered at once and never stored.', {
    spec: 'The token to check.',
    status: 'The answer: whether the token is valid and whose it is.',
  }),
  TokenReviewSpec: {
    '': 'The token a TokenReview asks about.',
    token: 'The bearer token.',
    audiences: 'Audiences the token must be meant for, at least one of them; the server\'s own audiences when empty.',
  },
  TokenReviewStatus: {
    '': 'The answer to a TokenReview.',
    authenticated: 'Whether the token is valid.',
    user: 'The user the token belongs to.',
    audiences: 'The audiences, of those asked for (or the server\'s own), that the token is meant for.',
    error: 'Why the token could not be checked.',
  },
  UserInfo: {
    '': 'A user as authentication found them.',
    username: 'The name that identifies the user.',
    uid: 'A unique identifier that stays the same for the same user over time, unlike the name.',
    groups: 'The groups the user belongs to.',
    extra: 'More information about the user, as lists of values by key.',
  },
  TokenRequest: kind('A TokenRequest asks for a new token of a service account, posted to its token subresource.', {
    spec: 'What the token is for and how long it lasts.',
    status: 'The issued token.',
  }),
  TokenRequestSpec: {
    '': 'What a requested token is for.',
    audiences: 'The audiences the token is meant for; a recipient must reject a token not meant for it. The server\'s own audiences when empty.',
    expirationSeconds: 'How long the token should be valid; the server may shorten it. Defaults to one hour.',
    boundObjectRef: 'An object the token is bound to: the token stops being valid when the object is deleted.',
  },
  TokenRequestStatus: {
    '': 'An issued token.',
    token: 'The token.',
    expirationTimestamp: 'When the token expires.',
  },
  BoundObjectReference: {
    '': 'The object a token is bound to.',
    kind: 'The kind of the object: "Pod" or "Secret".',
    apiVersion: 'The API version of the object.',
    name: 'The name of the object.',
    uid: 'The uid of the object.',
  },
  SelfSubjectReview: kind('A SelfSubjectReview asks the server who the client is: the answer is the user the request was authenticated as. It is never stored.', {
    status: 'The answer.',
  }),
  SelfSubjectReviewStatus: {
    '': 'The answer to a SelfSubjectReview.',
    userInfo: 'The user the request was authenticated as.',
  },
} satisfies DescriptionTable;
