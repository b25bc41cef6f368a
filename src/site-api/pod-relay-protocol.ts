/**
 * The pod relay (docs/SITE-API.md, "11. The pod relay"): how a connection a pod opens to the
 * relay on its site's gateway reaches the control plane. The agent opens TLS to the control
 * plane with its client certificate and asks `GET /api/sites/v1/pod-relay` with `Connection:
 * Upgrade`, `Upgrade: edgeplane-pod-relay.v1`; after `101 Switching Protocols` the connection
 * carries the pod's bytes as they are — the sidecar's own TLS, end to end — into the control
 * plane's pod-facing API, which serves the sidecar's routes and nothing else. One upgrade per
 * pod connection; either side closing ends both.
 */
export const POD_RELAY_PATH = '/api/sites/v1/pod-relay';
export const POD_RELAY_PROTOCOL = 'edgeplane-pod-relay.v1';
