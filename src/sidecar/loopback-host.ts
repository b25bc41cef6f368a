/**
 * Whether a request's `Host` names the loopback interface the sidecar listens on:
 * `127.0.0.1`, any `127.x.y.z`, `localhost` or `[::1]`, with or without a port, or no `Host`
 * at all (HTTP/1.0). A page in a browser inside the pod that was made to resolve its own
 * name to 127.0.0.1 (DNS rebinding) still sends that name: such requests are refused.
 */
export function isLoopbackHost(host: string | undefined): boolean {
  if (host === undefined) return true;
  const name = /^\[([^\]]*)\](?::\d{1,5})?$/.exec(host)?.[1] ?? /^([^:]*)(?::\d{1,5})?$/.exec(host)?.[1];
  if (name === undefined) return false;
  const lower = name.toLowerCase();
  return lower === 'localhost' || lower === '::1' || /^127\.\d{1,3}\.\d{1,3}\.\d{1,3}$/.test(lower);
}
