import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { Volume } from '../../../../api/pod-spec-types.js';
import { volumeContents } from './volume-contents.js';
import { VolumeError } from './volume-error.js';
import type { ConfigMapObject, SecretObject, VolumePod, VolumeSources } from './volume-types.js';

const pod: VolumePod = {
  metadata: { name: 'web-0', namespace: 'shop', uid: 'a1b2', labels: { app: 'web', tier: 'front' }, annotations: { note: 'say "hi"\n' } },
  spec: { containers: [{ name: 'app', resources: { limits: { cpu: '250m', memory: '64Mi' }, requests: { cpu: '100m', memory: '32Mi' } } }] },
};

function sources(configMaps: Record<string, ConfigMapObject>, secrets: Record<string, SecretObject> = {}): VolumeSources & { asked: string[] } {
  const asked: string[] = [];
  return {
    asked,
    configMap: (namespace, name) => {
      asked.push(`configmap ${namespace}/${name}`);
      return Promise.resolve(namespace === 'shop' ? configMaps[name] : undefined);
    },
    secret: (namespace, name) => {
      asked.push(`secret ${namespace}/${name}`);
      return Promise.resolve(namespace === 'shop' ? secrets[name] : undefined);
    },
    nodeAllocatable: { cpu: '2', memory: '4Gi' },
  };
}

const b64 = (text: string): string => Buffer.from(text).toString('base64');
const view = (files: Awaited<ReturnType<typeof volumeContents>>): Array<[string, string, string]> => files.map((file) => [file.path, file.data.toString('utf8'), file.mode.toString(8)]);

const settings: ConfigMapObject = { data: { 'app.conf': 'port=80', 'log.conf': 'level=info' }, binaryData: { 'logo.bin': Buffer.from([0, 1, 255]).toString('base64') } };

describe('volumeContents: configMap', () => {
  it('writes every key (data and binaryData) with the default mode 0644 when there are no items, looking the object up in the pod\'s namespace', async () => {
    const from = sources({ settings });
    const files = await volumeContents(pod, { name: 'cfg', configMap: { name: 'settings' } }, from);
    assert.deepEqual(view(files).map(([path, , mode]) => [path, mode]), [['app.conf', '644'], ['log.conf', '644'], ['logo.bin', '644']]);
    assert.deepEqual([...(files.find((file) => file.path === 'logo.bin')?.data ?? [])], [0, 1, 255]);
    assert.deepEqual(from.asked, ['configmap shop/settings']);
  });

  it('with items writes only the listed keys at their paths, per-item mode over defaultMode', async () => {
    const volume: Volume = { name: 'cfg', configMap: { name: 'settings', defaultMode: 0o400, items: [{ key: 'app.conf', path: 'etc/app.conf' }, { key: 'log.conf', path: 'log', mode: 0o640 }] } };
    assert.deepEqual(view(await volumeContents(pod, volume, sources({ settings }))), [
      ['etc/app.conf', 'port=80', '400'],
      ['log', 'level=info', '640'],
    ]);
  });

  it('a missing object or key is an error in kubelet\'s words unless optional, which skips it', async () => {
    await assert.rejects(volumeContents(pod, { name: 'cfg', configMap: { name: 'absent' } }, sources({})), (error: unknown) => error instanceof VolumeError && error.message === 'configmap "absent" not found');
    assert.deepEqual(await volumeContents(pod, { name: 'cfg', configMap: { name: 'absent', optional: true, items: [{ key: 'a', path: 'a' }] } }, sources({})), []);
    const missingKey: Volume = { name: 'cfg', configMap: { name: 'settings', items: [{ key: 'nope', path: 'x' }, { key: 'app.conf', path: 'app' }] } };
    await assert.rejects(volumeContents(pod, missingKey, sources({ settings })), { name: 'VolumeError', message: 'configmap references non-existent config key: nope' });
    const optional: Volume = { name: 'cfg', configMap: { ...missingKey.configMap, optional: true } };
    assert.deepEqual(view(await volumeContents(pod, optional, sources({ settings }))).map(([path]) => path), ['app']);
  });

  it('refuses item paths the atomic writer would refuse (.., absolute, its own ..names)', async () => {
    for (const [path, message] of [
      ['../escape', "invalid path: must not contain '..': ../escape"],
      ['/etc/passwd', 'invalid path: must be relative path: /etc/passwd'],
      ['..data/x', "invalid path: must not start with '..': ..data/x"],
    ] as const) {
      await assert.rejects(volumeContents(pod, { name: 'cfg', configMap: { name: 'settings', items: [{ key: 'app.conf', path }] } }, sources({ settings })), { message });
    }
    assert.deepEqual(view(await volumeContents(pod, { name: 'cfg', configMap: { name: 'settings', items: [{ key: 'app.conf', path: './a//b/' }] } }, sources({ settings }))).map(([path]) => path), ['a/b']);
  });
});

describe('volumeContents: secret', () => {
  it('decodes base64 data, honours defaultMode and items, and says `secret "x" not found`', async () => {
    const from = sources({}, { db: { data: { user: b64('admin'), password: b64('s3cret') } } });
    assert.deepEqual(view(await volumeContents(pod, { name: 's', secret: { secretName: 'db', defaultMode: 0o440 } }, from)), [
      ['password', 's3cret', '440'],
      ['user', 'admin', '440'],
    ]);
    assert.deepEqual(view(await volumeContents(pod, { name: 's', secret: { secretName: 'db', items: [{ key: 'password', path: 'pw', mode: 0o400 }] } }, from)), [['pw', 's3cret', '400']]);
    await assert.rejects(volumeContents(pod, { name: 's', secret: { secretName: 'gone' } }, from), { name: 'VolumeError', message: 'secret "gone" not found' });
    await assert.rejects(volumeContents(pod, { name: 's', secret: { secretName: 'db', items: [{ key: 'token', path: 't' }] } }, from), { message: 'references non-existent secret key: token' });
    assert.deepEqual(await volumeContents(pod, { name: 's', secret: { secretName: 'gone', optional: true } }, from), []);
  });
});

describe('volumeContents: downwardAPI and projected', () => {
  it('writes pod fields and resources with per-item modes', async () => {
    const volume: Volume = {
      name: 'info',
      downwardAPI: {
        defaultMode: 0o600,
        items: [
          { path: 'name', fieldRef: { fieldPath: 'metadata.name' } },
          { path: 'labels', fieldRef: { fieldPath: 'metadata.labels' }, mode: 0o644 },
          { path: 'mem', resourceFieldRef: { containerName: 'app', resource: 'limits.memory', divisor: '1Mi' } },
        ],
      },
    };
    assert.deepEqual(view(await volumeContents(pod, volume, sources({}))), [
      ['labels', 'app="web"\ntier="front"', '644'],
      ['mem', '64', '600'],
      ['name', 'web-0', '600'],
    ]);
  });

  it('reports every failing item together, as kubelet\'s aggregate does', async () => {
    const volume: Volume = { name: 'info', downwardAPI: { items: [{ path: 'a', fieldRef: { fieldPath: 'spec.nodeName' } }, { path: 'b', resourceFieldRef: { containerName: 'nope', resource: 'limits.cpu' } }] } };
    await assert.rejects(volumeContents(pod, volume, sources({})), { name: 'VolumeError', message: '[unsupported fieldPath: spec.nodeName, container nope not found]' });
  });

  it('projects secrets, configMaps and the downward API into one volume under its defaultMode; later sources win a path', async () => {
    const from = sources({ settings }, { db: { data: { password: b64('s3cret') } } });
    const volume: Volume = {
      name: 'all',
      projected: {
        defaultMode: 0o440,
        sources: [
          { secret: { name: 'db', items: [{ key: 'password', path: 'db/password', mode: 0o400 }] } },
          { configMap: { name: 'settings', items: [{ key: 'app.conf', path: 'app.conf' }] } },
          { downwardAPI: { items: [{ path: 'uid', fieldRef: { fieldPath: 'metadata.uid' } }] } },
          { configMap: { name: 'settings', items: [{ key: 'log.conf', path: 'uid' }] } },
        ],
      },
    };
    assert.deepEqual(view(await volumeContents(pod, volume, from)), [
      ['app.conf', 'port=80', '440'],
      ['db/password', 's3cret', '400'],
      ['uid', 'level=info', '440'],
    ]);
  });

  it('collects the errors of all projected sources, skips optional missing ones, and refuses serviceAccountToken with a reason', async () => {
    const from = sources({}, {});
    const volume: Volume = { name: 'all', projected: { sources: [{ secret: { name: 'db' } }, { configMap: { name: 'cfg', optional: true } }, { configMap: { name: 'other' } }] } };
    await assert.rejects(volumeContents(pod, volume, from), { message: '[secret "db" not found, configmap "other" not found]' });
    await assert.rejects(volumeContents(pod, { name: 'tok', projected: { sources: [{ serviceAccountToken: { path: 'token' } }] } }, from), (error: unknown) => error instanceof VolumeError && /serviceAccountToken projections are not supported on this site/.test(error.message));
  });
});

describe('volumeContents: other volumes', () => {
  it('emptyDir and persistentVolumeClaim have no planned files; unsupported sources are refused naming the source', async () => {
    assert.deepEqual(await volumeContents(pod, { name: 'scratch', emptyDir: {} }, sources({})), []);
    assert.deepEqual(await volumeContents(pod, { name: 'data', persistentVolumeClaim: { claimName: 'data' } }, sources({})), []);
    await assert.rejects(volumeContents(pod, { name: 'host', hostPath: { path: '/etc' } }, sources({})), {
      name: 'VolumeError',
      message: 'volume "host": hostPath volumes are not supported on this site (supported: emptyDir, configMap, secret, downwardAPI, projected, persistentVolumeClaim)',
    });
    await assert.rejects(volumeContents(pod, { name: 'n', nfs: { server: 'x', path: '/' } }, sources({})), /nfs volumes are not supported/);
  });
});
