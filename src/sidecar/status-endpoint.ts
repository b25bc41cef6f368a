import { type SidecarEndpoint, sendText } from './sidecar-endpoint.js';

/** `GET /status`: 200 in every state, the bare state word as text/plain. */
export const statusEndpoint: SidecarEndpoint = {
  method: 'GET',
  url: '/status',
  display: '/status',
  handle: (_request, reply, view) => sendText(reply.header('cache-control', 'no-store'), 200, view.current().kind),
};
