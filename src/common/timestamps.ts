/** How the service writes a timestamp: stored milliseconds since the epoch as an ISO 8601 UTC string. */

/** iso renders stored milliseconds the way the contract writes timestamps. */
export function iso(millis: number): string {
  return new Date(millis).toISOString();
}
