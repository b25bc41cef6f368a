import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { x509 } from '../common/x509.js';
import { createLogger } from '../observability/logger.js';
import { ensureAgentCredential } from './ensure-agent-credential.js';
import { siteSpecsFor } from './site-specs.js';
import { FakeSiteApi } from './testing/fake-site-api.js';

const logger = createLogger({ level: 'silent' });
const sites = siteSpecsFor({ name: 'edge-x', type: 'CUSTOMER_EDGE', labels: {}, nodes: 1, cpu: '2', memory: '4Gi' });

describe('the agent credential near its expiry', () => {
  let api: FakeSiteApi;
  let home: string;
  before(async () => {
    api = await FakeSiteApi.start();
    home = mkdtempSync(join(tmpdir(), 'edgeplane-credential-'));
  });
  after(async () => {
    await api.close().catch(() => undefined);
    rmSync(home, { recursive: true, force: true });
  });

  it('is used while valid when no token is given or registering again fails (the control plane unreachable); never once expired', async () => {
    const stored = await ensureAgentCredential({ home, agent: 'edge-x', sites, token: api.token, logger });
    const notAfter = new x509.X509Certificate(stored.certificate).notAfter.getTime();
    const nearExpiry = (): Date => new Date(notAfter - 30 * 60_000);
    assert.equal((await ensureAgentCredential({ home, agent: 'edge-x', sites, logger, now: nearExpiry })).certificate, stored.certificate);
    await api.close();
    const offline = await ensureAgentCredential({ home, agent: 'edge-x', sites, token: api.token, logger, now: nearExpiry });
    assert.equal(offline.certificate, stored.certificate);
    await assert.rejects(ensureAgentCredential({ home, agent: 'edge-x', sites, logger, now: () => new Date(notAfter + 1000) }), /registering again needs --registration-token/);
  });
});
