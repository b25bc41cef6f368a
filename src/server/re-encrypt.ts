import type { ValueTransformer } from '../common/envelope-encryption.js';
import { NAMESPACED_KINDS } from '../config/kinds/index.js';
import type { StoredObject } from '../config/envelope.js';
import { reencryptSecretFields } from '../config/secret-fields.js';
import type { KeyEncryptionKey } from '../identity/key-encryption-key.js';
import { resealRecord } from '../identity/sealed-key.js';
import { ObjectCodec } from '../registry/object-codec.js';
import { resourcePrefix } from '../registry/keys.js';
import { BLINDFOLD_KEYS_PREFIX } from '../secrets/blindfold-key-ring.js';
import { isStoreError } from '../store/errors.js';
import type { KeyValue, Store } from '../store/types.js';
import { ENCRYPTED_RESOURCES } from '../vk8s/cluster-storage.js';

/** One kind of record kept encrypted or sealed under the KEK, and how to move a value under the current key. */
interface EncryptedPlace {
  readonly name: string;
  readonly prefix: string;
  /** The value to write instead, or undefined when `kv` is already under the current key (or holds nothing encrypted). */
  reencode(kv: KeyValue): string | undefined;
}

/** What a pass did in one place. */
export interface ReencryptCount {
  readonly place: string;
  /** Records read. */
  readonly read: number;
  /** Records rewritten under the current key. */
  readonly rewritten: number;
}

/** `/config/<tenant>/<kind>/<namespace>/<name>` → the kind. */
function configKindOf(key: string): string | undefined {
  return key.split('/')[3];
}

/**
 * Everything kept under the key-encryption key: vK8s Secrets (whole values), config objects'
 * secret fields, the identity service's sealed keys and the blindfold key ring's.
 */
function encryptedPlaces(kek: KeyEncryptionKey, encryption: ValueTransformer): EncryptedPlace[] {
  const codec = new ObjectCodec({ transformer: encryption });
  const configKinds = [...NAMESPACED_KINDS.values()].filter((kind) => kind.secretFields !== undefined);
  const sealed = (kv: KeyValue): string | undefined => resealRecord(kek, kv.key, kv.value);
  return [
    ...ENCRYPTED_RESOURCES.map((resource) => ({ name: `vK8s ${resource.resource}`, prefix: resourcePrefix(resource), reencode: (kv: KeyValue) => codec.reencoded(kv) })),
    {
      name: `config secret fields (${configKinds.map((k) => k.kind).join(', ')})`,
      prefix: '/config/',
      reencode: (kv) => {
        const kind = configKinds.find((k) => k.kind === configKindOf(kv.key));
        if (kind === undefined) return undefined;
        const next = reencryptSecretFields(kind, kv.key, JSON.parse(kv.value) as StoredObject, encryption);
        return next === undefined ? undefined : JSON.stringify(next);
      },
    },
    { name: 'identity keys', prefix: '/identity/', reencode: sealed },
    { name: 'blindfold keys', prefix: BLINDFOLD_KEYS_PREFIX, reencode: sealed },
  ];
}

/**
 * Rewrites every record that is encrypted under a previous key-encryption key, or not
 * encrypted yet, under the current one (what `kubectl get secrets -A -o json | kubectl
 * replace -f -` does for kube-apiserver): read page by page, each rewrite a compare-and-swap
 * of the value read (re-read and redone on a conflict with a concurrent write; a record
 * deleted meanwhile is skipped). Content is unchanged; a rewritten record gets a new revision
 * (resourceVersion) and watchers see a MODIFIED event, as with kube. Safe to run while
 * servers run, once every server has the current key (and the previous ones to read).
 */
export async function reencryptStore(options: {
  readonly store: Store;
  readonly kek: KeyEncryptionKey;
  readonly encryption: ValueTransformer;
  readonly progress?: (line: string) => void;
  readonly pageSize?: number;
}): Promise<ReencryptCount[]> {
  const { store, progress } = options;
  const counts: ReencryptCount[] = [];
  for (const place of encryptedPlaces(options.kek, options.encryption)) {
    let read = 0;
    let rewritten = 0;
    let token: string | undefined;
    do {
      const page = await store.list(place.prefix, { limit: options.pageSize ?? 500, ...(token === undefined ? {} : { continue: token }) });
      for (const kv of page.items) {
        read++;
        if (await rewrite(store, kv, place)) rewritten++;
      }
      token = page.continue;
      if (token !== undefined) progress?.(`${place.name}: ${read} read, ${rewritten} re-encrypted so far`);
    } while (token !== undefined);
    progress?.(`${place.name}: ${read} read, ${rewritten} re-encrypted, ${read - rewritten} already under key ${options.kek.id}`);
    counts.push({ place: place.name, read, rewritten });
  }
  return counts;
}

/** Writes `kv`'s re-encoded value with compare-and-swap; true when a write was made. */
async function rewrite(store: Store, first: KeyValue, place: EncryptedPlace): Promise<boolean> {
  let kv: KeyValue | undefined = first;
  for (let attempt = 0; attempt < 100 && kv !== undefined; attempt++) {
    const next = place.reencode(kv);
    if (next === undefined) return false;
    try {
      await store.update(kv.key, next, kv.modRevision, kv.lease === undefined ? {} : { lease: kv.lease });
      return true;
    } catch (error) {
      if (!isStoreError(error, 'Conflict') && !isStoreError(error, 'KeyNotFound')) throw error;
      kv = await store.get(first.key);
    }
  }
  if (kv === undefined) return false;
  throw new Error(`${first.key} kept changing: not re-encrypted after 100 attempts`);
}
