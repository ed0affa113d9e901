import { execFile } from 'node:child_process';
import { mkdtempSync } from 'node:fs';
import type { Server } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import type { EventBus } from '@formgate/bus';
import { createSqliteBus } from '@formgate/bus/sqlite';
import { decodeEvent, TOPIC_SPECS, Topics } from '@formgate/contracts';
import { createDeadLetterGauge, operatorRoutes } from '@formgate/gateway';
import { createHttpServer, createLogger, createServiceApp, errorHandler, listen } from '@formgate/kit';
import { eventually } from '@formgate/kit/testing';
import { openSqlite } from '@formgate/store/sqlite';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

const run = promisify(execFile);
const TOKEN = 'operator-token-for-the-dead-letter-test-0123456789';

/**
 * The operator API and the CLI's `dlq` commands over a real embedded log: a consumer that meets a record failing
 * its schema dead-letters it at once; the operator lists it, replays it (once, however often asked), and the
 * consumer then sees it again.
 */
describe('dead letters for operators', { timeout: 90_000 }, () => {
  let bus: EventBus;
  let server: Server;
  let url: string;
  const seen: string[] = [];

  beforeAll(async () => {
    bus = createSqliteBus(openSqlite(join(mkdtempSync(join(tmpdir(), 'fg-dlq-')), 'bus.db')));
    await bus.ensureTopics(TOPIC_SPECS);
    let poisoned = true;
    await bus.subscribe({
      group: 'test.strict',
      topic: Topics.ingestSubmission,
      handler: async (batch) => {
        for (const m of batch) {
          seen.push(m.value);
          if (poisoned) decodeEvent(Topics.ingestSubmission, m.value);
        }
      },
    });
    await bus.publish(Topics.ingestSubmission, [{ key: 'form-1', value: '{"not":"an event"}' }]);
    await eventually(async () => expect((await bus.deadLetters.count(Topics.ingestSubmission)).total).toBe(1), 10_000);
    poisoned = false;
    const app = createServiceApp();
    app.use('/api/ops', operatorRoutes({ token: TOKEN, bus }));
    app.use(errorHandler(createLogger({ level: 'silent', name: 'test' })));
    server = createHttpServer(app);
    url = `http://127.0.0.1:${await listen(server, 0, '127.0.0.1')}`;
  });
  afterAll(async () => {
    server?.close();
    await bus?.close();
  });

  const ops = (path: string, init: RequestInit = {}, token = TOKEN) =>
    fetch(`${url}/api/ops${path}`, {
      ...init,
      headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json', ...init.headers },
    });
  const cli = async (...args: string[]) => {
    const env = { ...process.env, FORMGATE_URL: url, FORMGATE_OPERATOR_TOKEN: TOKEN };
    const { stdout } = await run('npx', ['tsx', 'packages/cli/src/main.ts', 'dlq', ...args], { env });
    return JSON.parse(stdout);
  };

  it('refuses a missing or wrong operator token, and an organization API key', async () => {
    expect((await fetch(`${url}/api/ops/dead-letters`)).status).toBe(401);
    expect((await ops('/dead-letters', {}, 'wrong')).status).toBe(401);
    const asKey = await fetch(`${url}/api/ops/dead-letters`, { headers: { 'x-api-key': TOKEN } });
    expect(asKey.status).toBe(401);
  });

  it('counts and lists the dead letter with its origin, group, failure class and error', async () => {
    const counts = await cli('counts');
    expect(counts.data).toContainEqual({ topic: Topics.ingestSubmission, total: 1, pending: 1 });
    const listed = await cli('list', '--topic', Topics.ingestSubmission);
    expect(listed.data).toEqual([
      expect.objectContaining({
        topic: Topics.ingestSubmission,
        group: 'test.strict',
        failure: 'permanent',
        key: 'form-1',
        value: '{"not":"an event"}',
        replayed: false,
        error: expect.stringContaining('does not match its schema'),
      }),
    ]);
    expect(seen).toEqual(['{"not":"an event"}']);
  });

  it('reports the pending dead letters for /healthz without making it wait', async () => {
    const gauge = createDeadLetterGauge(bus, 0);
    expect(gauge.snapshot()).toBeNull();
    await eventually(() => expect(gauge.snapshot()?.pending[Topics.ingestSubmission]).toBe(1), 10_000);
  });

  it('refuses an unknown topic and a malformed selection with 400', async () => {
    expect((await ops('/dead-letters/not.a.topic')).status).toBe(400);
    const bad = await ops(`/dead-letters/${Topics.ingestSubmission}/replay`, {
      method: 'POST',
      body: JSON.stringify({ offsets: ['x'] }),
    });
    expect(bad.status).toBe(400);
    expect(((await bad.json()) as { error: { code: string } }).error.code).toBe('VALIDATION_FAILED');
  });

  it('replays a dead letter once, however often asked, and the consumer sees it again', async () => {
    const first = await cli('replay', '--topic', Topics.ingestSubmission, '--all');
    expect(first).toMatchObject({ replayed: ['0'], alreadyReplayed: [], notFound: [] });
    const again = await cli('replay', '--topic', Topics.ingestSubmission, '--offset', '0,7');
    expect(again).toMatchObject({ replayed: [], alreadyReplayed: ['0'], notFound: ['7'] });
    await eventually(() => expect(seen).toEqual(['{"not":"an event"}', '{"not":"an event"}']), 10_000);
    expect((await cli('counts')).data).toContainEqual({ topic: Topics.ingestSubmission, total: 1, pending: 0 });
  });
});
