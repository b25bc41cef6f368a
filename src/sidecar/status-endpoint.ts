import { type SidecarEndpoint, textResponse } from './sidecar-endpoint.js';

/** `GET /status`: 200 in every state, the bare state word as text/plain. */
export const statusEndpoint: SidecarEndpoint = {
  method: 'GET',
  url: '/status',
  display: '/status',
  handle: (_request, view) => textResponse(200, view.current().kind, { 'cache-control': 'no-store' }),
};
