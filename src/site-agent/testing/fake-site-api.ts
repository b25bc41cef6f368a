import { createServer, type Server } from 'node:https';
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { TLSSocket } from 'node:tls';
import { type CryptoKey, generateEcKeyPair, privateKeyToPem, randomSerial, SIGN_ECDSA_SHA256, x509 } from '../../common/x509.js';
import type { KubeObject } from '../../apimachinery/object.js';
import { caPinOf } from '../../common/ca-pin.js';
import { podKeyOf } from '../pod-key.js';
import type { ClusterRef, PodRef, PodStatusItem, RegisterRequest, RegisterSite } from '../../site-api/site-api-types.js';

/** A pod the fake control plane holds, with the cluster it belongs to. */
interface HeldPod {
  readonly cluster: ClusterRef;
  pod: KubeObject;
}

interface WatchEvent {
  readonly rv: number;
  readonly line: string;
}

/**
 * A minimal control plane side of the site API (contract (6)) for agent tests: its own CA
 * and serving certificate, a registration token, CSR signing, mTLS checks, a pod watch with
 * resume and 410, and records of what agents sent. Pods are added by the test.
 */
export class FakeSiteApi {
  readonly registrations: Array<{ agent: string; sites: readonly RegisterSite[]; subject: string }> = [];
  readonly heartbeats: Array<{ subject: string; sites: readonly string[] }> = [];
  /** Every status item received, in order. */
  readonly statuses: PodStatusItem[] = [];
  readonly terminated: PodRef[] = [];
  readonly sites = new Set<string>();
  /** Requests refused for lack of a client certificate. */
  refusedWithoutCertificate = 0;
  /** Bodies of `POST /api/sites/v1/tokens` made with the API token `test-api-token`. */
  readonly tokenRequests: unknown[] = [];
  /** Watches refused with 410 Expired. */
  expiredWatches = 0;
  private readonly pods = new Map<string, HeldPod>();
  private readonly log: WatchEvent[] = [];
  private readonly watchers = new Set<ServerResponse>();
  private revision = 100;
  /** Resuming from this revision or an older one answers 410. */
  private compactedAt = 0;
  private server!: Server;
  private caCert!: x509.X509Certificate;
  private caKey!: CryptoKey;
  ca = '';
  url = '';
  token = '';

  static async start(): Promise<FakeSiteApi> {
    const api = new FakeSiteApi();
    await api.listen();
    return api;
  }

  private async listen(): Promise<void> {
    const keys = await generateEcKeyPair();
    const now = Date.now();
    this.caCert = await x509.X509CertificateGenerator.createSelfSigned({
      serialNumber: randomSerial(),
      name: 'CN=Fake Site API CA',
      notBefore: new Date(now - 60_000),
      notAfter: new Date(now + 86_400_000),
      signingAlgorithm: SIGN_ECDSA_SHA256,
      keys,
      extensions: [new x509.BasicConstraintsExtension(true, 1, true), new x509.KeyUsagesExtension(x509.KeyUsageFlags.keyCertSign | x509.KeyUsageFlags.digitalSignature, true)],
    });
    this.caKey = keys.privateKey;
    this.ca = this.caCert.toString('pem') + '\n';
    const serving = await generateEcKeyPair();
    const cert = await this.sign(serving.publicKey, 'CN=fake-site-api', [
      new x509.ExtendedKeyUsageExtension([x509.ExtendedKeyUsage.serverAuth]),
      new x509.SubjectAlternativeNameExtension([{ type: 'ip', value: '127.0.0.1' }, { type: 'dns', value: 'localhost' }]),
    ]);
    this.server = createServer({ key: await privateKeyToPem(serving.privateKey), cert: cert + this.ca, ca: this.ca, requestCert: true, rejectUnauthorized: false }, (req, res) => {
      this.route(req, res).catch((error: unknown) => this.answer(res, 500, { kind: 'Status', code: 500, reason: 'InternalError', message: String(error) }));
    });
    await new Promise<void>((resolve) => this.server.listen(0, '127.0.0.1', resolve));
    const address = this.server.address();
    const port = typeof address === 'object' && address !== null ? address.port : 0;
    this.url = `https://127.0.0.1:${port}`;
    this.token = 'ept1.' + Buffer.from(JSON.stringify({ id: 'abc123', secret: 's3cret', ca: caPinOf(this.ca), server: this.url })).toString('base64url');
  }

  private async sign(publicKey: CryptoKey | x509.PublicKey, subject: string, extensions: x509.Extension[]): Promise<string> {
    const cert = await x509.X509CertificateGenerator.create({
      serialNumber: randomSerial(),
      subject,
      issuer: this.caCert.subject,
      notBefore: new Date(Date.now() - 60_000),
      notAfter: new Date(Date.now() + 86_400_000),
      signingAlgorithm: SIGN_ECDSA_SHA256,
      publicKey,
      signingKey: this.caKey,
      extensions: [new x509.BasicConstraintsExtension(false, undefined, true), ...extensions],
    });
    return cert.toString('pem') + '\n';
  }

  /** Binds a pod to a node (`<site>-node-<i>`): an ADDED event. */
  addPod(cluster: ClusterRef, pod: KubeObject): void {
    this.pods.set(podKeyOf(cluster, pod.metadata.name ?? ''), { cluster, pod });
    this.emit('ADDED', cluster, pod);
  }

  pod(cluster: ClusterRef, name: string): KubeObject | undefined {
    return this.pods.get(podKeyOf(cluster, name))?.pod;
  }

  /** Marks a pod for deletion (MODIFIED with deletionTimestamp), as a graceful delete does. */
  markDeleted(cluster: ClusterRef, name: string, graceSeconds = 30): void {
    const held = this.pods.get(podKeyOf(cluster, name));
    if (held === undefined) return;
    held.pod = { ...held.pod, metadata: { ...held.pod.metadata, deletionTimestamp: new Date().toISOString(), deletionGracePeriodSeconds: graceSeconds } };
    this.emit('MODIFIED', held.cluster, held.pod);
  }

  /** Removes a pod without telling anyone first (a force delete): DELETED. */
  deletePod(cluster: ClusterRef, name: string): void {
    const held = this.pods.get(podKeyOf(cluster, name));
    if (held === undefined) return;
    this.pods.delete(podKeyOf(cluster, name));
    this.emit('DELETED', held.cluster, held.pod);
  }

  /** Ends every open watch; with `compact`, resuming from anything sent so far is refused with 410. */
  dropWatches(compact = false): void {
    if (compact) this.compactedAt = this.revision;
    for (const res of this.watchers) res.destroy();
    this.watchers.clear();
  }

  get openWatches(): number {
    return this.watchers.size;
  }

  close(): Promise<void> {
    this.dropWatches();
    this.server.closeAllConnections();
    return new Promise((resolve) => this.server.close(() => resolve()));
  }

  private emit(type: string, cluster: ClusterRef, pod: KubeObject): void {
    const rv = ++this.revision;
    const object = { ...pod, metadata: { ...pod.metadata, resourceVersion: String(rv) } };
    if (type !== 'DELETED') {
      const held = this.pods.get(podKeyOf(cluster, pod.metadata.name ?? ''));
      if (held !== undefined) held.pod = object;
    }
    const event = { rv, line: JSON.stringify({ type, cluster, object }) + '\n' };
    this.log.push(event);
    for (const res of this.watchers) res.write(event.line);
  }

  private async route(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const url = new URL(req.url ?? '/', this.url);
    const path = `${req.method ?? ''} ${url.pathname}`;
    if (path === 'GET /api/sites/v1/ca') {
      res.writeHead(200, { 'content-type': 'text/plain' });
      return void res.end(this.ca);
    }
    if (path === 'POST /api/sites/v1/register') return this.register(req, res);
    if (path === 'POST /api/sites/v1/tokens') {
      if (req.headers.authorization !== 'APIToken test-api-token') return this.answer(res, 401, { kind: 'Status', code: 16, reason: 'Unauthorized', message: 'bad API token' });
      this.tokenRequests.push(JSON.parse(await readBody(req)));
      return this.answer(res, 200, { token: this.token, expires: '2030-01-01T00:00:00Z' });
    }
    const socket = req.socket as TLSSocket;
    const subject = socket.authorized ? socket.getPeerCertificate().subject?.CN : undefined;
    if (subject === undefined || !String(subject).startsWith('site-agent:')) {
      this.refusedWithoutCertificate++;
      return this.answer(res, 401, { kind: 'Status', code: 401, reason: 'Unauthorized', message: 'a site agent client certificate is required' });
    }
    const body = req.method === 'POST' ? (JSON.parse(await readBody(req)) as Record<string, unknown>) : {};
    switch (path) {
      case 'POST /api/sites/v1/heartbeat':
        this.heartbeats.push({ subject: String(subject), sites: body['sites'] as string[] });
        return this.answer(res, 200, { leaseSeconds: 30 });
      case 'POST /api/sites/v1/pods/status': {
        const items = body['items'] as PodStatusItem[];
        this.statuses.push(...items);
        const results = items.map((item) => {
          const held = this.pods.get(podKeyOf(item.cluster, item.name));
          if (held === undefined) return { name: item.name, error: `pods "${item.name}" not found` };
          held.pod = { ...held.pod, status: item.status };
          return { name: item.name };
        });
        return this.answer(res, 200, { results });
      }
      case 'POST /api/sites/v1/pods/terminated': {
        const items = body['items'] as PodRef[];
        this.terminated.push(...items);
        for (const item of items) this.deletePod(item.cluster, item.name);
        return this.answer(res, 200, {});
      }
      case 'GET /api/sites/v1/pods':
        return this.watch(url, res);
      default:
        return this.answer(res, 404, { kind: 'Status', code: 404, reason: 'NotFound', message: `no route ${path}` });
    }
  }

  private async register(req: IncomingMessage, res: ServerResponse): Promise<void> {
    if (req.headers.authorization !== `Bearer ${this.token}`) return this.answer(res, 401, { kind: 'Status', code: 401, reason: 'Unauthorized', message: 'invalid registration token' });
    const body = JSON.parse(await readBody(req)) as RegisterRequest;
    const csr = new x509.Pkcs10CertificateRequest(body.csr);
    if (!(await csr.verify())) return this.answer(res, 400, { kind: 'Status', code: 400, reason: 'BadRequest', message: 'the CSR signature does not verify' });
    const certificate = await this.sign(csr.publicKey, `CN=site-agent:${body.agent}, O=acme`, [new x509.ExtendedKeyUsageExtension([x509.ExtendedKeyUsage.clientAuth])]);
    this.registrations.push({ agent: body.agent, sites: body.sites, subject: csr.subject });
    for (const site of body.sites) this.sites.add(site.name);
    this.answer(res, 200, { certificate: certificate + this.ca, ca: this.ca, sites: body.sites.map((s) => s.name) });
  }

  private watch(url: URL, res: ServerResponse): void {
    const from = url.searchParams.get('resourceVersion');
    if (from !== null && Number(from) <= this.compactedAt) {
      this.expiredWatches++;
      return this.answer(res, 410, { kind: 'Status', code: 410, reason: 'Expired', message: `too old resource version: ${from} (${this.compactedAt})` });
    }
    res.writeHead(200, { 'content-type': 'application/json' });
    if (from === null) {
      for (const { cluster, pod } of this.pods.values()) res.write(JSON.stringify({ type: 'ADDED', cluster, object: pod }) + '\n');
      res.write(JSON.stringify({ type: 'BOOKMARK', object: { kind: 'Pod', apiVersion: 'v1', metadata: { resourceVersion: String(this.revision) } } }) + '\n');
    } else {
      for (const event of this.log) if (event.rv > Number(from)) res.write(event.line);
    }
    this.watchers.add(res);
    res.on('close', () => this.watchers.delete(res));
  }

  private answer(res: ServerResponse, code: number, body: unknown): void {
    res.writeHead(code, { 'content-type': 'application/json' });
    res.end(JSON.stringify(body));
  }
}

function readBody(req: IncomingMessage): Promise<string> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => resolve(Buffer.concat(chunks).toString('utf8')));
    req.on('error', reject);
  });
}
