/**
 * Go names for the OpenAPI definitions and properties of the Kubernetes 1.17 API, as
 * json-iterator prints them in decode errors (`v1.Deployment.Spec: v1.DeploymentSpec.Replicas:
 * …`). Types are `<package>.<Type>`; fields are the Go struct field names, which are the JSON
 * names capitalised except for Go initialisms and a few renamed fields.
 */

/** `io.k8s.api.apps.v1.DeploymentSpec` → `v1.DeploymentSpec`. */
export function goTypeName(definition: string): string {
  const parts = definition.split('.');
  return parts.length < 2 ? definition : `${parts[parts.length - 2]}.${parts[parts.length - 1]}`;
}

/** JSON names whose Go field is not just the name capitalised. */
const FIELD_NAMES: Readonly<Record<string, string>> = {
  apiGroup: 'APIGroup',
  apiVersion: 'APIVersion',
  awsElasticBlockStore: 'AWSElasticBlockStore',
  cephfs: 'CephFS',
  csi: 'CSI',
  dnsConfig: 'DNSConfig',
  dnsPolicy: 'DNSPolicy',
  fc: 'FC',
  fsGroup: 'FSGroup',
  fsType: 'FSType',
  gcePersistentDisk: 'GCEPersistentDisk',
  gmsaCredentialSpec: 'GMSACredentialSpec',
  gmsaCredentialSpecName: 'GMSACredentialSpecName',
  httpGet: 'HTTPGet',
  httpHeaders: 'HTTPHeaders',
  ip: 'IP',
  ipFamily: 'IPFamily',
  iqn: 'IQN',
  iscsi: 'ISCSI',
  iscsiInterface: 'ISCSIInterface',
  nfs: 'NFS',
  osImage: 'OSImage',
  pdID: 'PDID',
  pdName: 'PDName',
  qosClass: 'QOSClass',
  rbd: 'RBD',
  seLinuxOptions: 'SELinuxOptions',
  sslEnabled: 'SSLEnabled',
  storageos: 'StorageOS',
  tcpSocket: 'TCPSocket',
  ttlSecondsAfterFinished: 'TTLSecondsAfterFinished',
  tty: 'TTY',
  uid: 'UID',
  wwids: 'WWIDs',
};

/** Fields renamed in Go, by `<type>.<json name>`. */
const RENAMED: Readonly<Record<string, string>> = {
  'v1.PodSpec.serviceAccount': 'DeprecatedServiceAccount',
};

const EMBEDDED_META: Readonly<Record<string, string>> = {
  '#/definitions/io.k8s.apimachinery.pkg.apis.meta.v1.ObjectMeta': 'ObjectMeta',
  '#/definitions/io.k8s.apimachinery.pkg.apis.meta.v1.ListMeta': 'ListMeta',
};

/** The Go field name of property `property` of definition `definition` (`metadata` → `ObjectMeta`). */
export function goFieldName(definition: string, property: string, ref: string | undefined): string {
  const renamed = RENAMED[`${goTypeName(definition)}.${property}`];
  if (renamed !== undefined) return renamed;
  if (property === 'metadata' && ref !== undefined) {
    const embedded = EMBEDDED_META[ref];
    if (embedded !== undefined) return embedded;
  }
  return FIELD_NAMES[property] ?? property.charAt(0).toUpperCase() + property.slice(1);
}
