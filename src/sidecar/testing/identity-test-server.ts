import { randomUUID } from 'node:crypto';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { createServer, type Server } from 'node:https';
import { isIP } from 'node:net';
import type { TLSSocket } from 'node:tls';
import { jwtVerify, SignJWT } from 'jose';
import { type CryptoKey, generateEcKeyPair, privateKeyToPem, randomSerial, SIGN_ECDSA_SHA256, x509 } from '../../common/x509.js';
import { caPinOf } from '../../common/ca-pin.js';
import type { IdentityCsrs } from '../identity-bundle.js';
import { TestIdentityCa } from './test-identity-ca.js';

const CLIENT_AUTH = '1.3.6.1.5.5.7.3.2';

export interface RecordedRequest {
  readonly method: string;
  readonly path: string;
  readonly bearer: boolean;
  /** Serial number (hex, as x509 prints it) of the verified TLS client certificate, if any. */
  readonly clientSerial?: string;
}

function status(res: ServerResponse, code: number, reason: string, message: string): void {
  res.writeHead(code, { 'content-type': 'application/json' });
  res.end(JSON.stringify({ kind: 'Status', apiVersion: 'v1', metadata: {}, status: 'Failure', message, reason, code }));
}

function readBody(req: IncomingMessage): Promise<string> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => resolve(Buffer.concat(chunks).toString('utf8')));
    req.on('error', reject);
  });
}

/**
 * The identity service's side of the contract, small, for the sidecar's tests: its own API CA
 * (served unverified at `GET /api/sites/v1/ca`), ES256 bootstrap tokens carrying that CA's pin,
 * `POST /api/identity/v1/certificates` checking the Bearer token, `…/renew` checking the TLS
 * client certificate against the identity CA, Kubernetes Status errors, and a record of requests.
 */
export class IdentityTestServer {
  readonly requests: RecordedRequest[] = [];
  /** When false every identity call answers 503. */
  available = true;
  url = '';
  apiCa = '';
  private server!: Server;
  private tokenKey!: CryptoKey;
  private tokenPublicKey!: CryptoKey;

  private constructor(
    readonly identityCa: TestIdentityCa,
    readonly lifetimeMs: number,
    private readonly names: readonly string[],
  ) {}

  /** `names`: what its serving certificate is for (default 127.0.0.1, where it listens; others are reached through `--connect-to`). */
  static async start(options: { lifetimeMs?: number; names?: readonly string[] } = {}): Promise<IdentityTestServer> {
    const server = new IdentityTestServer(await TestIdentityCa.create(Date.now()), options.lifetimeMs ?? 3_600_000, options.names ?? ['127.0.0.1']);
    await server.listen();
    return server;
  }

  /** A bootstrap token as the service mints it; `caPin: null` leaves the claim out. */
  async mintToken(options: { caPin?: string | null; expiresInSeconds?: number; pod?: string } = {}): Promise<string> {
    const pod = options.pod ?? 'web-0';
    const pin = options.caPin === undefined ? caPinOf(this.apiCa) : options.caPin;
    const now = Math.floor(Date.now() / 1000);
    return new SignJWT({
      'edgeplane.io': { tenant: 'acme', namespace: 'default', vk8s: 'vk', site: 'ce-1', pod: { name: pod, uid: randomUUID() } },
      ...(pin === null ? {} : { ca_pin: pin }),
    })
      .setProtectedHeader({ alg: 'ES256', kid: 'test' })
      .setIssuer('edgeplane')
      .setAudience('edgeplane-identity')
      .setSubject(`system:pod:default:vk:${pod}`)
      .setIssuedAt(now - 60)
      .setNotBefore(now - 60)
      .setExpirationTime(now + (options.expiresInSeconds ?? 600))
      .setJti(randomUUID())
      .sign(this.tokenKey);
  }

  count(path: string): number {
    return this.requests.filter((r) => r.path === path).length;
  }

  close(): Promise<void> {
    this.server.closeAllConnections();
    return new Promise((resolve) => this.server.close(() => resolve()));
  }

  private async listen(): Promise<void> {
    const tokenKeys = await generateEcKeyPair();
    this.tokenKey = tokenKeys.privateKey;
    this.tokenPublicKey = tokenKeys.publicKey;
    const caKeys = await generateEcKeyPair();
    const now = Date.now();
    const validity = { notBefore: new Date(now - 60_000), notAfter: new Date(now + 86_400_000) };
    const apiCa = await x509.X509CertificateGenerator.createSelfSigned({
      serialNumber: randomSerial(), name: 'CN=Test platform API CA', ...validity, signingAlgorithm: SIGN_ECDSA_SHA256, keys: caKeys,
      extensions: [new x509.BasicConstraintsExtension(true, 1, true), new x509.KeyUsagesExtension(x509.KeyUsageFlags.keyCertSign, true)],
    });
    this.apiCa = apiCa.toString('pem') + '\n';
    const serving = await generateEcKeyPair();
    const cert = await x509.X509CertificateGenerator.create({
      serialNumber: randomSerial(), subject: 'CN=identity-test-server', issuer: apiCa.subject, ...validity, signingAlgorithm: SIGN_ECDSA_SHA256,
      publicKey: serving.publicKey, signingKey: caKeys.privateKey,
      extensions: [new x509.ExtendedKeyUsageExtension([x509.ExtendedKeyUsage.serverAuth]), new x509.SubjectAlternativeNameExtension(this.names.map((name) => ({ type: isIP(name) === 0 ? 'dns' : 'ip', value: name })))],
    });
    const tls = { key: await privateKeyToPem(serving.privateKey), cert: cert.toString('pem') + '\n', ca: this.identityCa.trustPem, requestCert: true, rejectUnauthorized: false };
    this.server = createServer(tls, (req, res) => {
      this.route(req, res).catch((error: unknown) => status(res, 500, 'InternalError', String(error)));
    });
    await new Promise<void>((resolve) => this.server.listen(0, '127.0.0.1', resolve));
    this.url = `https://127.0.0.1:${(this.server.address() as { port: number }).port}`;
  }

  private async route(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const path = new URL(req.url ?? '/', this.url).pathname;
    const socket = req.socket as TLSSocket;
    const peer = socket.authorized ? socket.getPeerCertificate() : undefined;
    const clientSerial = peer?.ext_key_usage?.includes(CLIENT_AUTH) === true ? peer.serialNumber.toLowerCase() : undefined;
    const authorization = req.headers.authorization ?? '';
    this.requests.push({ method: req.method ?? '', path, bearer: authorization.startsWith('Bearer '), ...(clientSerial === undefined ? {} : { clientSerial }) });
    if (req.method === 'GET' && path === '/api/sites/v1/ca') {
      res.writeHead(200, { 'content-type': 'application/x-pem-file' });
      return void res.end(this.apiCa);
    }
    if (req.method !== 'POST' || (path !== '/api/identity/v1/certificates' && path !== '/api/identity/v1/certificates/renew')) return status(res, 404, 'NotFound', `no route ${req.method ?? ''} ${path}`);
    if (!this.available) return status(res, 503, 'ServiceUnavailable', 'the identity service is not available');
    if (path.endsWith('/renew')) {
      if (clientSerial === undefined) return status(res, 401, 'Unauthorized', 'renewal needs the client certificate of a pod identity');
    } else if (!(await this.tokenIsValid(authorization))) {
      return status(res, 401, 'Unauthorized', 'the bootstrap token is invalid or expired');
    }
    const csrs = JSON.parse(await readBody(req)) as IdentityCsrs;
    const bundle = await this.identityCa.issue(csrs, { now: Date.now(), lifetimeMs: this.lifetimeMs });
    res.writeHead(200, { 'content-type': 'application/json' });
    res.end(JSON.stringify(bundle));
  }

  private async tokenIsValid(authorization: string): Promise<boolean> {
    if (!authorization.startsWith('Bearer ')) return false;
    try {
      await jwtVerify(authorization.slice('Bearer '.length), this.tokenPublicKey, { issuer: 'edgeplane', audience: 'edgeplane-identity' });
      return true;
    } catch {
      return false;
    }
  }
}
