// Rewrites the route list of docs/api.md from the route table: `pnpm docs:api` after adding or changing a route.
import { readFileSync, writeFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { withRouteList } from './api-route-list.ts';

const target = resolve(import.meta.dirname, '../../../docs/api.md');
writeFileSync(target, withRouteList(readFileSync(target, 'utf8')));
console.warn(`wrote the route list of ${target}`);
