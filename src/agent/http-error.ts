/** a request the agent's ports refuse, with the status code it is answered with */
export class HttpError extends Error {
  constructor(readonly code: number, message: string) {
    super(message);
  }
}
