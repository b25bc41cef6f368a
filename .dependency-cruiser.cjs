// The architecture of src/, stated as rules that `npm run lint` checks (dependency-cruiser).
// docs/ARCHITECTURE.md explains the layers; every rule here says why it exists. If a rule
// stands in the way, change the design or argue for changing the rule there, in docs.
//
// The rules speak of production code. Unit tests (*.test.ts) and test harnesses (testing/
// folders) may reach any layer, because they exercise a unit in its real wiring; the
// `no-testing-code-in-production` rule keeps them out of what ships.

/** Top-level folders of src/, lowest first. A folder may import only folders listed in `may`. */
const LAYERS = {
  common: { may: [], why: 'small helpers with no domain: clock, timers, atomic files, DER/PEM/X.509, CA pins' },
  observability: { may: [], why: 'logging and metrics, used by every layer' },
  client: { may: [], why: 'the HTTPS client the CLI, agents and tests share' },
  store: { may: ['common', 'observability'], why: 'the storage port speaks keys and revisions, never API objects' },
  apimachinery: { may: [], why: 'what every API object shares; pure functions, no I/O, no store' },
  api: { may: ['apimachinery'], why: 'Kubernetes API types (core/v1 pods) and pure rules on them, shared by the control plane and sites' },
  'site-api': { may: ['apimachinery', 'api', 'common'], why: 'the contract between site agents and the control plane: types and formats both sides use' },
  registry: { may: ['apimachinery', 'api', 'store', 'common', 'observability'], why: 'the generic store: lifecycle of every kind, configured by strategies; it knows no kind' },
  auth: { may: ['apimachinery', 'store', 'common', 'observability'], why: 'principals, credentials, authorization; below every API that authenticates' },
  config: { may: ['auth', 'registry', 'apimachinery', 'store', 'common', 'observability', 'client'], why: 'the configuration API (envelope objects); it does not know the virtual cluster' },
  vk8s: { may: ['config', 'auth', 'registry', 'api', 'apimachinery', 'store', 'common', 'observability'], why: 'the virtual Kubernetes API, per virtual_k8s object' },
  identity: { may: ['vk8s', 'config', 'auth', 'registry', 'site-api', 'api', 'apimachinery', 'store', 'common', 'observability'], why: 'CA, certificate issuance, pod bootstrap tokens' },
  secrets: { may: ['identity', 'config', 'auth', 'apimachinery', 'store', 'common', 'observability', 'client'], why: 'blindfold and Vault: policies, unsealing' },
  controllers: { may: ['vk8s', 'config', 'auth', 'registry', 'site-api', 'api', 'apimachinery', 'store', 'common', 'observability'], why: 'level-based reconcilers and placement; they read caches and write through the registry' },
  'site-plane': { may: ['controllers', 'identity', 'vk8s', 'config', 'auth', 'registry', 'site-api', 'api', 'apimachinery', 'store', 'common', 'observability', 'client'], why: "the control plane's side of sites: registration, leases, bound pods" },
  sidecar: { may: ['secrets', 'site-api', 'api', 'common', 'observability', 'client'], why: 'runs in every workload pod; holds the pod identity, never the platform (api/: the injection\'s contract, e.g. its port)' },
  'site-agent': { may: ['site-api', 'api', 'apimachinery', 'common', 'observability', 'client'], why: 'runs on a site, behind NAT; speaks only the site API' },
  server: { may: ['site-plane', 'controllers', 'secrets', 'identity', 'vk8s', 'config', 'auth', 'registry', 'site-api', 'site-agent', 'sidecar', 'api', 'apimachinery', 'store', 'common', 'observability', 'client'], why: 'the composition root: wires the parts into processes' },
  cli: { may: ['server', 'site-plane', 'controllers', 'secrets', 'identity', 'vk8s', 'config', 'auth', 'registry', 'site-api', 'site-agent', 'sidecar', 'api', 'apimachinery', 'store', 'common', 'observability', 'client'], why: 'the `edgeplane` command, on top of everything' },
};

const PRODUCTION = { path: '^src/', pathNot: ['\\.test\\.ts$', '/testing/'] };

/**
 * Folders that other code meets only through their `index.ts` (their public face): the
 * machine's primitives, the Service data plane, kubelet's semantics, and the runc runtime.
 * Their own unit tests may reach inside; nothing else may (the CLI, other folders, test
 * helpers, e2e tests, benchmarks).
 */
const FACES = ['site-agent/host', 'site-agent/service-proxy', 'site-agent/runtimes/kubelet', 'site-agent/runtimes/runc'];

/**
 * The runc runtime's services, lowest first: a folder may import only the folders listed in
 * `may` (through their faces), so the services form one order, as the control plane's layers
 * do. The runtime's own files (runtimes/runc/*.ts) compose them and may import every face.
 */
const RUNC_SERVICES = {
  oci: { may: [], why: 'the OCI runtime specification the site writes (config.json), pure' },
  network: { may: [], why: 'the site network: namespace, bridge, packet filter, pod addresses, the netns socket broker, the relay to the control plane' },
  probes: { may: ['containers'], why: 'kubelet\'s prober and lifecycle hooks' },
  images: { may: ['oci'], why: 'the site\'s image store and each container instance\'s root over an image or the host\'s programs' },
  volumes: { may: ['oci'], why: 'pod volumes: planned, set up in the pod\'s folder, bound into containers, torn down' },
  containers: { may: ['oci', 'images'], why: 'runc under conmon and each instance\'s OCI bundle from the pod\'s spec' },
  eviction: { may: [], why: 'kubelet\'s eviction manager for local ephemeral storage: a budgeted du of the pods\' folders, the eviction decided by pure rules' },
  sandbox: { may: ['oci', 'containers', 'network'], why: 'pod sandboxes: network namespace, address, infra container, hosts and DNS files' },
  sidecar: { may: ['oci', 'images', 'containers'], why: 'the injected workload sidecar: its launch, its identity files\' owner, its readiness' },
  streams: { may: ['containers', 'network', 'sidecar'], why: 'logs, exec, attach and port-forward of the pods' },
  'pod-worker': { may: ['oci', 'network', 'probes', 'images', 'volumes', 'containers', 'sandbox', 'sidecar', 'streams'], why: 'kubelet\'s pod workers: decide (computePodActions), then act on the services' },
};
const RUNC = 'src/site-agent/runtimes/runc';
const TESTS = '\\.test\\.ts$';

const faceRules = FACES.map((folder) => ({
  name: `face-${folder.replace(/\//g, '-')}`,
  comment: `src/${folder}/ is used through its index.ts only: what it does not export is its own.`,
  severity: 'error',
  from: { path: '^(src|test|bench|reliability)/', pathNot: [`^src/${folder}/`] },
  to: { path: `^src/${folder}/`, pathNot: [`^src/${folder}/index\\.ts$`] },
}));

const runcServiceRules = Object.entries(RUNC_SERVICES).map(([folder, service]) => ({
  name: `runc-${folder}`,
  comment: `${RUNC}/${folder}/ (${service.why}) may use only ${service.may.length === 0 ? 'itself' : service.may.map((f) => `${f}/`).join(', ')} of the runtime's services, each through its index.ts.`,
  severity: 'error',
  from: { path: `^${RUNC}/${folder}/`, pathNot: [TESTS] },
  to: { path: `^${RUNC}/`, pathNot: [`^${RUNC}/${folder}/`, ...service.may.map((f) => `^${RUNC}/${f}/index\\.ts$`)] },
}));
const IO_MODULES = '^(node:)?(fs|fs/promises|net|http|https|http2|tls|dgram|child_process|worker_threads|cluster)$|^(better-sqlite3|etcd3|fastify|ws|spdy-transport)$';

const layerRules = Object.entries(LAYERS).map(([folder, layer]) => ({
  name: `layer-${folder}`,
  comment: `src/${folder}/ (${layer.why}) may import only ${layer.may.length === 0 ? 'itself' : layer.may.map((f) => `${f}/`).join(', ')}: the layers form one order, so no two folders import each other.`,
  severity: 'error',
  from: { path: `^src/${folder}/`, pathNot: PRODUCTION.pathNot },
  to: { path: '^src/', pathNot: [`^src/(${[folder, ...layer.may].join('|')})/`] },
}));

module.exports = {
  forbidden: [
    ...layerRules,
    ...faceRules,
    ...runcServiceRules,
    {
      name: 'runc-runtime-uses-service-faces',
      comment: 'The runc runtime\'s own files (composition) use each service folder through its index.ts.',
      severity: 'error',
      from: { path: `^${RUNC}/[^/]+\\.ts$`, pathNot: [TESTS] },
      to: { path: `^${RUNC}/[^/]+/`, pathNot: [`^${RUNC}/[^/]+/index\\.ts$`] },
    },
    {
      name: 'runc-service-known',
      comment: 'Every folder of the runc runtime has its place in RUNC_SERVICES (add it there, with its reason).',
      severity: 'error',
      from: { path: `^${RUNC}/[^/]+/`, pathNot: [`^${RUNC}/(${Object.keys(RUNC_SERVICES).join('|')})/`] },
      to: {},
    },
    {
      name: 'no-unknown-folder',
      comment: 'Every top-level folder of src/ has a place in the layers above (add it there, with its reason).',
      severity: 'error',
      from: { path: '^src/', pathNot: [`^src/(${Object.keys(LAYERS).join('|')})/`, ...PRODUCTION.pathNot] },
      to: {},
    },
    {
      name: 'no-circular',
      comment: 'No import cycle between modules either: a cycle makes initialization order matter and hides which piece is the lower one.',
      severity: 'error',
      from: PRODUCTION,
      to: { circular: true, pathNot: PRODUCTION.pathNot },
    },
    {
      name: 'store-knows-no-api',
      comment: 'The store is a port in storage terms (keys, revisions, leases); API objects and their errors live above it (kube-apiserver storage.Interface).',
      severity: 'error',
      from: { path: '^src/store/', pathNot: PRODUCTION.pathNot },
      to: { path: '^src/(apimachinery|api|registry|vk8s|config|auth|identity|secrets|controllers|site-plane|site-api)/' },
    },
    {
      name: 'apimachinery-is-pure',
      comment: 'apimachinery/ and api/ are pure functions and types: no store, no file, socket or process I/O, so every rule on API objects is testable without setup.',
      severity: 'error',
      from: { path: '^src/(apimachinery|api)/', pathNot: PRODUCTION.pathNot },
      to: { path: [IO_MODULES, '^src/store/'] },
    },
    {
      name: 'registry-knows-no-kind',
      comment: 'The generic registry owns every kind\'s lifecycle and is configured by strategies; it imports no kind (kube-apiserver registry/generic).',
      severity: 'error',
      from: { path: '^src/registry/', pathNot: PRODUCTION.pathNot },
      to: { path: '^src/(vk8s|config)/' },
    },
    {
      name: 'controllers-write-through-registry',
      comment: 'Controllers read informer caches and write objects through the registry, never straight to the store, so admission, validation and field management apply to their writes. Only leader election holds a store lease; elsewhere store imports are type-only (the KeyValue/WatchEvent values informers hand out).',
      severity: 'error',
      from: { path: '^src/controllers/', pathNot: ['^src/controllers/runtime/leader-election\\.ts$', ...PRODUCTION.pathNot] },
      to: { path: '^src/store/', dependencyTypesNot: ['type-only'] },
    },
    {
      name: 'site-agent-speaks-only-the-site-api',
      comment: 'A site agent runs on another machine behind NAT and reaches the control plane only through the site API; it never imports the store, the registry or the control plane\'s side.',
      severity: 'error',
      from: { path: '^src/site-agent/', pathNot: PRODUCTION.pathNot },
      to: { path: '^src/(store|registry|site-plane|controllers|vk8s|config|auth|identity|secrets|server)/' },
    },
    {
      name: 'sidecar-holds-no-platform',
      comment: 'The sidecar runs inside every workload pod; it must not carry the store, the registry, controllers or the site plane into it.',
      severity: 'error',
      from: { path: '^src/sidecar/', pathNot: PRODUCTION.pathNot },
      to: { path: '^src/(store|registry|controllers|site-plane)/' },
    },
    {
      name: 'sidecar-holds-no-platform-transitively',
      comment: 'Nor through another folder: what the sidecar imports must not reach the store, the registry, controllers or the site plane.',
      severity: 'error',
      from: { path: '^src/sidecar/', pathNot: PRODUCTION.pathNot },
      to: { path: '^src/(store|registry|controllers|site-plane)/', reachable: true },
    },
    {
      name: 'config-does-not-know-vk8s',
      comment: 'The configuration API is below the virtual cluster: virtual_k8s is a config kind, the virtual cluster reads it, never the other way.',
      severity: 'error',
      from: { path: '^src/config/', pathNot: PRODUCTION.pathNot },
      to: { path: '^src/vk8s/' },
    },
    {
      name: 'no-testing-code-in-production',
      comment: 'Test harnesses and fixtures (testing/ folders, *.test.ts) never ship inside the product.',
      severity: 'error',
      from: PRODUCTION,
      to: { path: ['/testing/', '\\.test\\.ts$'] },
    },
    {
      name: 'no-non-package-json',
      comment: 'Every npm package the code imports is declared in package.json.',
      severity: 'error',
      from: {},
      to: { dependencyTypes: ['npm-no-pkg', 'npm-unknown'] },
    },
    {
      name: 'not-to-dev-dep',
      comment: 'Production code imports only dependencies, never devDependencies (they are absent in a production install).',
      severity: 'error',
      from: PRODUCTION,
      to: { dependencyTypes: ['npm-dev'] },
    },
  ],
  options: {
    doNotFollow: { path: 'node_modules' },
    tsPreCompilationDeps: true,
    tsConfig: { fileName: 'tsconfig.json' },
    enhancedResolveOptions: { exportsFields: ['exports'], conditionNames: ['import', 'require', 'node', 'default', 'types'], extensions: ['.ts', '.js'] },
    reporterOptions: {
      dot: { collapsePattern: '^src/[^/]+/' },
      archi: { collapsePattern: '^src/[^/]+/' },
    },
  },
};
