import { createHash } from 'node:crypto';
import { pemDecodeAll } from './der/pem.js';

/**
 * The pin of a CA: `sha256:<hex>` of the DER of the first certificate in `pem`. (Only PEM
 * armour is read here, so the sidecar and site agent that check pins do not load an X.509 library.)
 */
export function caPinOf(pem: string): string {
  const der = pemDecodeAll(pem, 'CERTIFICATE')[0];
  if (der === undefined) throw new Error('the CA answered by the server holds no PEM certificate');
  return `sha256:${createHash('sha256').update(new Uint8Array(der)).digest('hex')}`;
}

/**
 * Throws unless the first certificate of `pem` has the pin `expected` (from the registration
 * token, or a sidecar's bootstrap token: `source` names it in the error): the one check that
 * makes trusting a CA fetched without verification safe.
 */
export function checkCaPin(pem: string, expected: string, source = 'the registration token'): void {
  const actual = caPinOf(pem);
  if (actual !== expected.toLowerCase()) {
    throw new Error(`the server's CA does not match ${source}: its certificate has ${actual}, the token pins ${expected}; refusing to trust it (is --server the control plane that issued the token?)`);
  }
}
