// How the reference's REST client words an answer of another status than 2xx from a server it called (a webhook):
// the usual codes by name, a server error with what the server said.

/** the words of the reference's client for an answer of another status than 2xx: the usual codes by name, a server
 *  error with what the server said */
const statusWords: Record<number, string> = {
  400: 'the server rejected our request for an unknown reason',
  401: 'the server has asked for the client to provide credentials',
  403: 'the server does not allow access to the requested resource',
  404: 'the server could not find the requested resource',
  405: 'the server does not allow this method on the requested resource',
  422: 'the server rejected our request due to an error in our request',
  429: 'the server has received too many requests and has asked us to try again later',
  503: 'the server is currently unable to handle the request',
  504: 'the server was unable to return a response in the time allotted, but may still be processing the request',
};
export function httpFailure(status: number, text: string): string {
  if (statusWords[status]) return statusWords[status];
  const said = text.trim();
  return status >= 500 && said ? `an error on the server (${JSON.stringify(said.slice(0, 200))}) has prevented the request from succeeding`
    : `the server responded with the status code ${status} but did not return more information`;
}
