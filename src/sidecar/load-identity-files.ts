import { createPrivateKey, type X509Certificate } from 'node:crypto';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { type IdentityMaterial, pemBlock } from './identity-material.js';
import { pemCertificates } from './pem-certificates.js';

export type LoadedIdentity = { readonly material: IdentityMaterial } | { readonly reason: string };

/** The leaf and the rest of a `.crt` chain file, checked against its key. */
function readChain(dir: string, role: 'server' | 'client'): { leaf: X509Certificate; chain: string; key: string } {
  const key = readFileSync(join(dir, `${role}.key`), 'utf8');
  const certificates = pemCertificates(readFileSync(join(dir, `${role}.crt`), 'utf8'));
  const [leaf, ...chain] = certificates;
  if (leaf === undefined || chain.length === 0) throw new Error(`${role}.crt is not a leaf followed by its chain`);
  if (!leaf.checkPrivateKey(createPrivateKey(key))) throw new Error(`${role}.key does not belong to ${role}.crt`);
  return { leaf, chain: chain.map((c) => pemBlock(c.toString())).join(''), key };
}

/**
 * Reads an identity a previous run of the sidecar wrote into `dir` (a restarted sidecar
 * container of the same pod: its bootstrap token has likely expired, but its client certificate
 * can still renew). Gives the reason when there is none or it is unusable: a file missing or
 * unreadable, a key that does not belong to its certificate, certificates expired at `now`.
 */
export function loadIdentityFiles(dir: string, now: number): LoadedIdentity {
  if (!existsSync(join(dir, 'client.crt'))) return { reason: `no identity in ${dir}` };
  try {
    const server = readChain(dir, 'server');
    const client = readChain(dir, 'client');
    const notBefore = Math.max(Date.parse(server.leaf.validFrom), Date.parse(client.leaf.validFrom));
    const notAfter = Math.min(Date.parse(server.leaf.validTo), Date.parse(client.leaf.validTo));
    if (notAfter <= now) return { reason: `the identity in ${dir} expired at ${new Date(notAfter).toISOString()}` };
    return {
      material: {
        serverKey: server.key,
        serverCertificate: pemBlock(server.leaf.toString()),
        clientKey: client.key,
        clientCertificate: pemBlock(client.leaf.toString()),
        chain: client.chain,
        serverCa: readFileSync(join(dir, 'server_ca.crt'), 'utf8'),
        clientCa: readFileSync(join(dir, 'client_ca.crt'), 'utf8'),
        validity: { notBefore, notAfter },
      },
    };
  } catch (error) {
    return { reason: `the identity in ${dir} is unusable: ${error instanceof Error ? error.message : String(error)}` };
  }
}
