import { execFile } from 'node:child_process';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { homedir } from 'node:os';
import { resolve } from 'node:path';
import { promisify } from 'node:util';
import { loadGatewayConfig } from '@formgate/gateway';
import { describe, expect, it } from 'vitest';
import { parseAllDocuments } from 'yaml';
import { ENTRY_POINTS } from '../../infra/docker/entry-points.ts';
import { loadBillingConfig } from '../../services/billing/src/config.ts';
import { loadFormsConfig } from '../../services/forms/src/config.ts';
import { loadIngestConfig } from '../../services/ingest/src/config.ts';
import { loadNotificationsConfig } from '../../services/notifications/src/config.ts';
import { loadOrgsConfig } from '../../services/orgs/src/config.ts';

/**
 * infra/k8s without a cluster: the manifests against the Kubernetes API schemas (kubernetes-validate, offline, in
 * the venv `infra/k8s/validate.sh install` caches), then what no schema can know — the manifests against the code.
 */
const ROOT = resolve(import.meta.dirname, '../..');
const K8S = resolve(ROOT, 'infra/k8s');
const run = promisify(execFile);

// biome-ignore lint/suspicious/noExplicitAny: parsed manifests are checked field by field below.
type Manifest = any;
const load = (file: string): Manifest[] =>
  parseAllDocuments(readFileSync(resolve(K8S, file), 'utf8')).map((d) => {
    if (d.errors.length > 0) throw new Error(`${file}: ${d.errors[0]?.message}`);
    return d.toJS();
  });

const kustomization = load('kustomization.yaml')[0];
const resources: string[] = kustomization.resources;
const manifests = resources.flatMap((file) => load(file).map((m) => ({ ...m, file })));
const ofKind = (kind: string) => manifests.filter((m) => m.kind === kind);
const configMap = ofKind('ConfigMap').find((m) => m.metadata.name === 'formgate-config');
const secretExample = load('secret.example.yaml')[0];

/** Each process's own config loader: a Deployment's environment must pass it, as the process would at boot. */
const LOADERS: Record<string, (env: Record<string, string>) => unknown> = {
  gateway: loadGatewayConfig,
  ingest: loadIngestConfig,
  forms: loadFormsConfig,
  billing: loadBillingConfig,
  notifications: loadNotificationsConfig,
  orgs: loadOrgsConfig,
};

/** The environment a Deployment's container gets, with the example Secret's values. */
function environmentOf(deployment: Manifest): Record<string, string> {
  const container = deployment.spec.template.spec.containers[0];
  const env: Record<string, string> = {};
  for (const from of container.envFrom ?? []) {
    expect(from.configMapRef?.name, `${deployment.metadata.name}: envFrom is the ConfigMap`).toBe('formgate-config');
    Object.assign(env, configMap.data);
  }
  for (const e of container.env ?? []) {
    const ref = e.valueFrom;
    if (ref?.secretKeyRef) {
      const value = secretExample.stringData[ref.secretKeyRef.key];
      expect(value, `${e.name}: key ${ref.secretKeyRef.key} is documented in secret.example.yaml`).toBeDefined();
      env[e.name] = value;
    } else if (ref?.configMapKeyRef) {
      const value = configMap.data[ref.configMapKeyRef.key];
      expect(value, `${e.name}: key ${ref.configMapKeyRef.key} is in formgate-config`).toBeDefined();
      env[e.name] = value;
    } else if (ref?.fieldRef) env[e.name] = `${deployment.metadata.name}-7d9f8b6c5-x2x4z`;
    else env[e.name] = e.value;
  }
  return env;
}

describe('infra/k8s', () => {
  it('is valid against the Kubernetes API schemas (kubernetes-validate, strict)', async () => {
    const script = readFileSync(resolve(K8S, 'validate.sh'), 'utf8');
    const version = /^VALIDATOR_VERSION=(\S+)$/m.exec(script)?.[1];
    const cache = process.env.FORMGATE_CACHE ?? resolve(homedir(), '.cache/formgate');
    if (!existsSync(resolve(cache, `k8s-validate-venv-${version}`, '.installed'))) {
      if (process.env.CI)
        throw new Error('kubernetes-validate is not installed: .ci/run must run `infra/k8s/validate.sh install`');
      console.warn('skipping the schema check: run `bash infra/k8s/validate.sh install` once');
      return;
    }
    const { stderr } = await run('bash', [resolve(K8S, 'validate.sh')], { timeout: 60_000 });
    expect(stderr).toMatch(/valid for Kubernetes/);
  }, 90_000);

  it('has a Deployment and a Service for the gateway and every service in services/', () => {
    const services = readdirSync(resolve(ROOT, 'services'), { withFileTypes: true })
      .filter((d) => d.isDirectory())
      .map((d) => d.name);
    const expected = ['gateway', ...services].sort();
    expect(
      ofKind('Deployment')
        .map((d) => d.metadata.name)
        .sort(),
    ).toEqual(expected);
    // And ingest's headless Service: every pod by name, where the gateway settles changes of settings.
    expect(
      ofKind('Service')
        .map((d) => d.metadata.name)
        .sort(),
    ).toEqual([...expected, 'ingest-peers'].sort());
    expect(ofKind('Service').find((s) => s.metadata.name === 'ingest-peers')?.spec.clusterIP).toBe('None');
    expect(Object.keys(LOADERS).sort()).toEqual(expected);
  });

  it('gives every Deployment liveness on /healthz and readiness on /readyz, on its container port', () => {
    for (const d of ofKind('Deployment')) {
      const c = d.spec.template.spec.containers[0];
      const port = c.ports[0];
      const isPort = (p: string | number) => p === port.name || p === port.containerPort;
      for (const probe of ['livenessProbe', 'startupProbe'])
        expect(c[probe]?.httpGet?.path, `${d.metadata.name} ${probe}`).toBe('/healthz');
      expect(c.readinessProbe?.httpGet?.path, `${d.metadata.name} readiness`).toBe('/readyz');
      for (const probe of ['livenessProbe', 'readinessProbe', 'startupProbe'])
        expect(isPort(c[probe].httpGet.port), `${d.metadata.name} ${probe} port`).toBe(true);
      // The port the process listens on is the one probed.
      expect(environmentOf(d).PORT).toBe(String(port.containerPort));
    }
  });

  it('starts each process from its bundle in the image, with /metrics on a named port Prometheus scrapes', () => {
    for (const d of ofKind('Deployment')) {
      const name: string = d.metadata.name;
      const container = d.spec.template.spec.containers[0];
      // The production image holds dist/<name>.mjs (infra/docker/build-runtime.ts), never the TypeScript sources.
      expect(container.command, name).toEqual(['node', `dist/${name}.mjs`]);
      expect(ENTRY_POINTS[name], `${name}: an entry point of the image`).toBeDefined();
      const port = Number(environmentOf(d).METRICS_PORT);
      expect(port, `${name}: METRICS_PORT`).toBeGreaterThan(0);
      expect(container.ports.find((p: { name: string }) => p.name === 'metrics')?.containerPort, name).toBe(port);
      const annotations = d.spec.template.metadata.annotations ?? {};
      expect(annotations['prometheus.io/port'], name).toBe(String(port));
      expect(annotations['prometheus.io/scrape'], name).toBe('true');
    }
  });

  it('runs non-root on a read-only root filesystem, with requests and limits, exiting within its grace period', () => {
    const shutdownMs = Number(configMap.data.SHUTDOWN_TIMEOUT_MS);
    for (const d of ofKind('Deployment')) {
      const pod = d.spec.template.spec;
      const c = pod.containers[0];
      expect(pod.securityContext.runAsNonRoot).toBe(true);
      expect(c.securityContext).toMatchObject({ readOnlyRootFilesystem: true, allowPrivilegeEscalation: false });
      expect(c.resources.requests).toMatchObject({ cpu: expect.any(String), memory: expect.any(String) });
      expect(c.resources.limits).toMatchObject({ memory: expect.any(String) });
      expect(c.image).toBe(kustomization.images[0].name);
      // preStop + the process's own deadline end before the kubelet's SIGKILL.
      const preStop = c.lifecycle?.preStop?.sleep?.seconds ?? 0;
      expect(preStop + shutdownMs / 1000, d.metadata.name).toBeLessThan(pod.terminationGracePeriodSeconds);
    }
  });

  it('passes secrets by secretKeyRef only, every key documented, never a value in a manifest', () => {
    const secretish = /SECRET|TOKEN|PASSWORD|MONGO_URL|SMTP_URL|KEY$|KEY_ID$|KEY_PREVIOUS$/;
    expect(Object.keys(configMap.data).filter((k) => secretish.test(k))).toEqual([]);
    expect(ofKind('Secret')).toEqual([]);
    const referenced = new Set<string>();
    for (const d of ofKind('Deployment')) {
      for (const e of d.spec.template.spec.containers[0].env ?? []) {
        if (secretish.test(e.name)) {
          expect(e.valueFrom?.secretKeyRef?.name, `${d.metadata.name} ${e.name}`).toBe('formgate-secrets');
          referenced.add(e.valueFrom.secretKeyRef.key);
        }
      }
    }
    expect([...referenced].sort()).toEqual(Object.keys(secretExample.stringData).sort());
  });

  it("gives every Deployment an environment its process's own config accepts", () => {
    for (const d of ofKind('Deployment')) {
      const loadConfig = LOADERS[d.metadata.name];
      if (!loadConfig) throw new Error(`no config loader for ${d.metadata.name}`);
      expect(() => loadConfig(environmentOf(d)), d.metadata.name).not.toThrow();
    }
    // The gateway reaches each service on the port its Service exposes.
    for (const s of ofKind('Service').filter((x) => x.metadata.name !== 'gateway')) {
      const url = configMap.data[`${s.metadata.name.toUpperCase().replace('-', '_')}_URL`];
      expect(url, s.metadata.name).toBe(`http://${s.metadata.name}:${s.spec.ports[0].port}`);
    }
  });

  it('passes each signing secret a process verifies with its optional _PREVIOUS (rotation, ADR 50), which its config reads', () => {
    const rotating: Record<string, string[]> = {
      gateway: ['OPERATOR_TOKEN', 'AUTH_SECRET'],
      ingest: ['INGEST_SECRET'],
      forms: ['IDENTITY_SECRET', 'FILE_LINK_SECRET', 'PRIVACY_KEY'],
      billing: ['IDENTITY_SECRET'],
      orgs: ['IDENTITY_SECRET'],
      notifications: ['IDENTITY_SECRET', 'NOTIFICATIONS_LINK_SECRET'],
    };
    for (const d of ofKind('Deployment')) {
      const name: string = d.metadata.name;
      const env: { name: string; valueFrom?: Manifest }[] = d.spec.template.spec.containers[0].env ?? [];
      const previous = env.filter((e) => e.name.endsWith('_PREVIOUS'));
      expect(previous.map((e) => e.name).sort(), name).toEqual(
        (rotating[name] ?? []).map((n) => `${n}_PREVIOUS`).sort(),
      );
      // Absent outside a rotation: the pod must start without the key.
      for (const e of previous) expect(e.valueFrom?.secretKeyRef?.optional, `${name} ${e.name}`).toBe(true);
      // The process's schema knows each (zod drops keys it does not know: a typo would be silently ignored).
      const config = LOADERS[name]?.(environmentOf(d)) as Record<string, unknown>;
      for (const e of previous) expect(config[e.name], `${name} ${e.name}`).toBe(secretExample.stringData[e.name]);
    }
  });

  it('scales ingest and the consumers with HPAs on existing Deployments, each with a PodDisruptionBudget', () => {
    const deployments = new Map(ofKind('Deployment').map((d) => [d.metadata.name, d]));
    const hpas = ofKind('HorizontalPodAutoscaler');
    expect(hpas.map((h) => h.spec.scaleTargetRef.name).sort()).toEqual(['billing', 'forms', 'ingest', 'notifications']);
    for (const h of hpas) {
      const target = deployments.get(h.spec.scaleTargetRef.name);
      expect(target && h.spec.scaleTargetRef.kind, h.metadata.name).toBe('Deployment');
      // An HPA owns the replica count: a `replicas` in the Deployment would reset it on every apply.
      expect(target.spec.replicas, h.metadata.name).toBeUndefined();
    }
    for (const p of ofKind('PodDisruptionBudget')) {
      const d = deployments.get(p.metadata.name);
      expect(p.spec.selector.matchLabels).toEqual(d.spec.selector.matchLabels);
    }
    expect(ofKind('PodDisruptionBudget').length).toBe(deployments.size);
    const ingress = ofKind('Ingress')[0];
    expect(ingress.spec.rules[0].http.paths[0].backend.service.name).toBe('gateway');
  });
});
