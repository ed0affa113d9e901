import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { CONSUMER_GROUPS, Topics } from '../src/index.ts';

const ROOT = join(import.meta.dirname, '../../..');

function sources(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) =>
    e.isDirectory() ? sources(join(dir, e.name)) : e.name.endsWith('.ts') ? [join(dir, e.name)] : [],
  );
}

/** `group: '<name>'` followed (within a few lines) by `topic: Topics.<key>` in every service's and host's source. */
function subscribedGroups() {
  const dirs = ['services', 'hosts', 'packages']
    .flatMap((top) => readdirSync(join(ROOT, top)).map((d) => join(ROOT, top, d, 'src')))
    .concat(join(ROOT, 'gateway/src'));
  const found = new Map<string, { group: string; topic: string }>();
  for (const dir of dirs) {
    let files: string[];
    try {
      files = sources(dir);
    } catch {
      continue;
    }
    for (const file of files) {
      const text = readFileSync(file, 'utf8');
      for (const m of text.matchAll(/group: '([a-z]+\.[a-z-]+)',?\s*(?:\/\/[^\n]*\s*)?topic: Topics\.(\w+)/g)) {
        const group = m[1] as string;
        found.set(`${group} ${m[2]}`, { group, topic: Topics[m[2] as keyof typeof Topics] });
      }
    }
  }
  return [...found.values()];
}

describe('CONSUMER_GROUPS', () => {
  it('lists exactly the consumer groups the services subscribe, each with its topic', () => {
    const byName = (a: { group: string }, b: { group: string }) => a.group.localeCompare(b.group);
    const subscribed = subscribedGroups().sort(byName);
    expect(subscribed.length).toBeGreaterThan(10);
    expect([...CONSUMER_GROUPS].sort(byName)).toEqual(subscribed);
  });
});
