import { join } from 'node:path';
import { extractLinks } from '@formgate/mail';
import { openSqlite } from '@formgate/store/sqlite';
import mongoose from 'mongoose';
import { readMailbox, waitForMailLink } from '../harness/browser-session.ts';
import { eventually, startTestApp, type TestApp } from '../harness/embedded-app.ts';
import { type startDistributed, stopProcess } from '../harness/processes.ts';
import type { FlowTarget } from './target.ts';

/** Embedded mode links to http://localhost:<port>; Node's fetch may try ::1 first, the test app listens on IPv4. */
const ipv4 = (link: string) => link.replace('//localhost:', '//127.0.0.1:');

export function embeddedTarget(app: TestApp): FlowTarget {
  return {
    mode: 'embedded',
    get baseUrl() {
      return app.baseUrl;
    },
    accounts: app.accounts,
    mails: async (to) => readMailbox(app.dataDir, to),
    mailLink: async (to, subject) => ipv4(await waitForMailLink(app.dataDir, to, subject)),
    waitForForm: (key) => app.waitForForm(key),
    async storedApiKey(id) {
      const db = openSqlite(join(app.dataDir, 'auth.db'));
      try {
        return (db.prepare('SELECT key FROM apikey WHERE id = ?').get(id) as { key: string }).key;
      } finally {
        db.close();
      }
    },
    patienceMs: 5_000,
    async startGateway(env) {
      const other = await startTestApp(env);
      return {
        baseUrl: other.baseUrl,
        mailLink: async (to, subject) => ipv4(await waitForMailLink(other.dataDir, to, subject)),
        stop: () => other.stop(),
      };
    },
  };
}

type Cluster = Awaited<ReturnType<typeof startDistributed>>;

export function distributedTarget(cluster: Cluster): FlowTarget {
  const latestLink = (to: string, subject: RegExp) =>
    eventually(() => {
      const mail = cluster.smtp.messages.filter((m) => m.to.includes(to) && subject.test(m.subject)).at(-1);
      const [link] = mail ? extractLinks(mail.text) : [];
      if (!link) throw new Error(`no "${subject}" mail for ${to} yet`);
      return link;
    }, 15_000);
  let extra = 0;
  return {
    mode: 'distributed',
    baseUrl: cluster.baseUrl,
    accounts: cluster.accounts,
    mails: async (to) => cluster.smtp.messages.filter((m) => m.to.includes(to)),
    mailLink: latestLink,
    async waitForForm(key) {
      const ingest = Object.values(cluster.processes).filter((p) => p.name.startsWith('ingest-'));
      await eventually(async () => {
        for (const p of ingest) {
          const r = await fetch(`${p.url}/f/${key}`, { method: 'POST', headers: { accept: 'application/json' } });
          if (r.status === 404) throw new Error(`${p.name} does not know form ${key} yet`);
        }
      }, 30_000);
    },
    async storedApiKey(id) {
      const conn = await mongoose
        .createConnection(process.env.MONGO_URL as string, { dbName: `${cluster.mongoDbPrefix}_accounts` })
        .asPromise();
      try {
        const ids: unknown[] = [id];
        if (mongoose.isObjectIdOrHexString(id)) ids.push(new mongoose.Types.ObjectId(id));
        const row = await conn.collection('apikey').findOne({ _id: { $in: ids } } as never);
        if (!row) throw new Error(`API key ${id} not found in ${cluster.mongoDbPrefix}_accounts.apikey`);
        return String(row.key);
      } finally {
        await conn.close();
      }
    },
    patienceMs: 30_000,
    /** The extra gateway gets databases of its own (its own accounts and rate-limit counters) unless `env` says. */
    async startGateway(env) {
      const n = ++extra;
      const gateway = await cluster.startExtraGateway(`gateway-extra-${n}`, {
        MONGO_DB_PREFIX: `${cluster.mongoDbPrefix}_x${n}`,
        ...env,
      });
      return { baseUrl: gateway.url, mailLink: latestLink, stop: () => stopProcess(gateway) };
    },
  };
}
