import { execFile } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { resolve } from 'node:path';
import { describe, expect, it, type TestContext } from 'vitest';

/**
 * The CI audit step (`infra/ci/audit.sh`, ADR 47) against a stand-in of the registry's audit endpoint: pnpm 10's
 * `audit` POSTs the lockfile's dependency tree to `<registry>/-/npm/v1/security/audits/quick`, then to `/audits` if
 * that did not answer 200, and reads npm's audit report (`advisories`, `metadata.vulnerabilities`). The stand-in is
 * a small advisory database: it answers an advisory only for a package it finds in the tree pnpm posted, so a
 * reported advisory proves the script audited our lockfile. The registry is pointed at the stand-in through
 * `npm_config_registry`; pnpm makes no other request (each case checks every request the stand-in saw).
 */
const ROOT = resolve(import.meta.dirname, '../..');
const SCRIPT = resolve(ROOT, 'infra/ci/audit.sh');
const QUICK = '/-/npm/v1/security/audits/quick';
const FULL = '/-/npm/v1/security/audits';

type Severity = 'info' | 'low' | 'moderate' | 'high' | 'critical';
interface KnownAdvisory {
  id: number;
  module: string;
  severity: Severity;
}
interface AuditNode {
  version?: string;
  dependencies?: Record<string, AuditNode>;
}

/** Every version and path of `module` in the tree pnpm posted (pnpm's paths: `importer>dep>dep`). */
function findingsOf(tree: AuditNode, module: string) {
  const byVersion = new Map<string, string[]>();
  const walk = (node: AuditNode, path: string[]) => {
    for (const [name, child] of Object.entries(node.dependencies ?? {})) {
      const here = [...path, name];
      if (name === module && child.version)
        byVersion.set(child.version, [...(byVersion.get(child.version) ?? []), here.join('>')]);
      if (here.length < 12) walk(child, here);
    }
  };
  for (const [importer, node] of Object.entries(tree.dependencies ?? {})) walk(node, [importer]);
  return [...byVersion].map(([version, paths]) => ({ version, paths }));
}

/** npm's audit report for the advisories whose package is in the posted tree. */
function auditReport(tree: AuditNode, known: KnownAdvisory[]) {
  const advisories: Record<string, unknown> = {};
  const vulnerabilities: Record<Severity, number> = { info: 0, low: 0, moderate: 0, high: 0, critical: 0 };
  for (const a of known) {
    const findings = findingsOf(tree, a.module);
    if (findings.length === 0) continue;
    vulnerabilities[a.severity] += 1;
    advisories[a.id] = {
      id: a.id,
      github_advisory_id: `GHSA-test-${a.id}`,
      title: `Stand-in advisory ${a.id} (${a.severity}) in ${a.module}`,
      module_name: a.module,
      severity: a.severity,
      vulnerable_versions: '>=0.0.0',
      patched_versions: '<0.0.0',
      url: `https://github.com/advisories/GHSA-test-${a.id}`,
      cves: [],
      cwe: [],
      findings,
    };
  }
  return {
    actions: [],
    advisories,
    muted: [],
    metadata: { vulnerabilities, dependencies: 0, devDependencies: 0, optionalDependencies: 0, totalDependencies: 0 },
  };
}

interface StandIn {
  url: string;
  requests: { method: string; url: string; tree?: AuditNode }[];
  server: Server;
}

/** Closed when the test ends (the tests run concurrently: each closes its own). */
async function startStandIn(
  { onTestFinished }: TestContext,
  answer: { known: KnownAdvisory[] } | { status: number },
): Promise<StandIn> {
  const requests: StandIn['requests'] = [];
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const body = Buffer.concat(chunks).toString('utf8');
      const tree = body ? (JSON.parse(body) as AuditNode) : undefined;
      requests.push({ method: req.method ?? '', url: req.url ?? '', tree });
      if ('status' in answer) {
        res.writeHead(answer.status, { 'content-type': 'text/plain' }).end('Method Not Allowed');
      } else if (req.method === 'POST' && req.url === QUICK && tree) {
        res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(auditReport(tree, answer.known)));
      } else {
        res.writeHead(404).end();
      }
    });
  });
  await new Promise<void>((done) => server.listen(0, '127.0.0.1', done));
  onTestFinished(() => new Promise<void>((done) => server.close(() => done())));
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/`, requests, server };
}

/** Runs the CI script with only the stand-in as registry (no npm_config_* or FORMGATE_AUDIT_REQUIRED inherited). */
async function runAudit(standIn: StandIn, env: Record<string, string> = {}) {
  const inherited = Object.fromEntries(
    Object.entries(process.env).filter(([k]) => !/^npm_config_/i.test(k) && k !== 'FORMGATE_AUDIT_REQUIRED'),
  );
  return new Promise<{ code: number; output: string }>((done) => {
    execFile(
      'bash',
      [SCRIPT],
      {
        env: {
          ...inherited,
          npm_config_registry: standIn.url,
          npm_config_update_notifier: 'false',
          NO_COLOR: '1',
          ...env,
        },
        timeout: 80_000,
      },
      (err, stdout, stderr) => {
        // biome-ignore lint/suspicious/noControlCharactersInRegex: strips terminal colours
        const output = `${stdout}\n${stderr}`.replace(/\u001b\[[0-9;]*m/g, '');
        done({ code: err ? ((err as { code?: number }).code ?? 1) : 0, output });
      },
    );
  });
}

// A runtime dependency (the Kafka bus) as the lockfile pins it: the advisory must name it and its path.
const kafkajsVersion = /\n {2}kafkajs@([^:]+):/.exec(readFileSync(resolve(ROOT, 'pnpm-lock.yaml'), 'utf8'))?.[1];

// ~5 s for the four on an idle machine (one pnpm each, run at once); minutes when the machine is loaded.
describe.concurrent('CI audit step (infra/ci/audit.sh)', { timeout: 90_000 }, () => {
  it('fails on a high advisory for a package in the lockfile, naming it', async (ctx) => {
    expect(kafkajsVersion).toBeDefined();
    const standIn = await startStandIn(ctx, {
      known: [
        { id: 1001, module: 'kafkajs', severity: 'high' },
        { id: 1002, module: 'formgate-no-such-package', severity: 'critical' },
      ],
    });
    const { code, output } = await runAudit(standIn);
    expect(code, output).not.toBe(0);
    expect(output).toContain('Stand-in advisory 1001 (high) in kafkajs');
    expect(output).toMatch(/Package\s*│\s*kafkajs/);
    expect(output).toContain('https://github.com/advisories/GHSA-test-1001');
    expect(output).toContain('1 vulnerabilities found');
    expect(output).not.toContain('formgate-no-such-package');
    expect(output).not.toContain('AUDIT NOT RUN');
    // pnpm posted our lockfile's tree, kafkajs at its locked version, and asked nothing else.
    expect(standIn.requests.map((r) => `${r.method} ${r.url}`)).toEqual([`POST ${QUICK}`]);
    const posted = standIn.requests[0]?.tree;
    expect(posted && findingsOf(posted, 'kafkajs').map((f) => f.version)).toEqual([kafkajsVersion]);
  });

  it('passes when the advisories are only low or moderate', async (ctx) => {
    const standIn = await startStandIn(ctx, {
      known: [
        { id: 2001, module: 'kafkajs', severity: 'moderate' },
        { id: 2002, module: 'jose', severity: 'low' },
      ],
    });
    const { code, output } = await runAudit(standIn);
    expect(code, output).toBe(0);
    // Counted in the summary, but not reported as failing at --audit-level high.
    expect(output).toContain('2 vulnerabilities found');
    expect(output).not.toContain('Stand-in advisory');
    expect(output).not.toContain('AUDIT NOT RUN');
    expect(standIn.requests.map((r) => `${r.method} ${r.url}`)).toEqual([`POST ${QUICK}`]);
  });

  it('reports AUDIT NOT RUN and passes when the endpoint answers 405', async (ctx) => {
    const standIn = await startStandIn(ctx, { status: 405 });
    const { code, output } = await runAudit(standIn);
    expect(code, output).toBe(0);
    expect(output).toContain('ERR_PNPM_AUDIT_BAD_RESPONSE');
    expect(output).toContain(
      "AUDIT NOT RUN: the registry's audit endpoint did not answer (see above); no advisory could be checked",
    );
    expect(standIn.requests.map((r) => `${r.method} ${r.url}`)).toEqual([`POST ${QUICK}`, `POST ${FULL}`]);
  });

  it('fails on a 405 with FORMGATE_AUDIT_REQUIRED=true', async (ctx) => {
    const standIn = await startStandIn(ctx, { status: 405 });
    const { code, output } = await runAudit(standIn, { FORMGATE_AUDIT_REQUIRED: 'true' });
    expect(code, output).not.toBe(0);
    expect(output).toContain('AUDIT NOT RUN');
    expect(output).toContain('FORMGATE_AUDIT_REQUIRED=true fails the run');
    expect(standIn.requests.map((r) => `${r.method} ${r.url}`)).toEqual([`POST ${QUICK}`, `POST ${FULL}`]);
  });
});
