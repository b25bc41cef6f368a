import type { PodIdentity } from '../ports.js';

/** A pod identity for tests: tenant acme, namespace default, service account web, unless overridden. */
export function testPodIdentity(overrides: Partial<PodIdentity> = {}): PodIdentity {
  return {
    tenant: 'acme',
    namespace: 'default',
    vk8s: 'cluster',
    site: 'site-1',
    pod: 'web-7d4b9c-x2k4p',
    podUid: '5f2b0c7e-6a8d-4f3b-9d1e-2c4a6b8d0e1f',
    serviceAccount: 'web',
    labels: { app: 'web', tier: 'frontend', 'svc.io/siteName': 'site-1' },
    ...overrides,
  };
}
