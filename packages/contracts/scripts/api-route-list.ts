// The "Routes" table of docs/api.md, generated from the route table (`API_ROUTES`) and the OpenAPI description built
// from it, so a new endpoint is written in the table only. `pnpm docs:api` rewrites it (write-api-route-list.ts);
// tests/infra/api-route-list.unit.test.ts fails while docs/api.md is out of date.
import { buildOpenApiDocument, toOpenApiPath } from '../src/openapi/document.ts';
import { API_ROUTE_LIST, type ApiRoute } from '../src/routes/index.ts';

const START =
  '<!-- The route list is generated from packages/contracts/src/routes by `pnpm docs:api`: do not edit. -->';
const END = '<!-- End of the generated route list. -->';

type Schema = { $ref?: string; properties?: Record<string, unknown>; required?: string[] };
type Operation = {
  requestBody?: { content: Record<string, { schema: Schema }> };
  responses: Record<string, { content?: Record<string, { schema?: Schema }> }>;
};

/** A schema in a cell: its component's name, or an object's keys (optional ones marked `?`). */
function shape(schema: Schema | undefined): string {
  if (schema?.$ref) return `\`${schema.$ref.split('/').pop()}\``;
  if (!schema?.properties) return '';
  const keys = Object.keys(schema.properties).map((k) => (schema.required?.includes(k) ? k : `${k}?`));
  return `\`{${keys.join(', ')}}\``;
}

function answers(op: Operation): string {
  return Object.entries(op.responses)
    .filter(([status]) => Number(status) < 400)
    .map(([status, r]) => {
      const media = Object.keys(r.content ?? {}).map((type) => `\`${type}\``);
      return [status, shape(r.content?.['application/json']?.schema) || media.join(', ')].filter(Boolean).join(' ');
    })
    .join('; ');
}

function who(route: ApiRoute): string {
  if (route.auth === 'public') return 'anyone';
  if (route.auth === 'user') return 'signed-in user';
  return route.apiKey ? `member, ${route.apiKey} key` : 'member session';
}

const permission = (route: ApiRoute) =>
  Object.entries(route.permission ?? {})
    .map(([resource, actions]) => actions.map((a) => `${resource}:${a}`).join(', '))
    .join(', ') || '—';

const cell = (text: string) => text.replaceAll('|', '\\|');
const width = (text: string) => [...text].length;

/** The route table as a markdown table, its columns aligned. */
export function renderRouteList(): string {
  const doc = buildOpenApiDocument();
  const rows = API_ROUTE_LIST.map((route) => {
    const path = toOpenApiPath(route.path);
    const op = (doc.paths[path] as Record<string, Operation>)[route.method.toLowerCase()] as Operation;
    const query = Object.keys(route.request?.query?.shape ?? {});
    return [
      route.method,
      `\`${path}${query.length > 0 ? `?${query.join('=&')}=` : ''}\``,
      shape(op.requestBody?.content['application/json']?.schema),
      answers(op),
      who(route),
      permission(route),
      route.summary,
    ].map(cell);
  });
  const header = ['method', 'path', 'body', 'answer', 'who', 'permission', 'what'];
  const widths = header.map((h, i) => Math.max(width(h), ...rows.map((r) => width(r[i] as string))));
  const line = (cells: string[]) =>
    `| ${cells.map((c, i) => c + ' '.repeat((widths[i] as number) - width(c))).join(' | ')} |`;
  return [line(header), line(widths.map((w) => '-'.repeat(w))), ...rows.map(line)].join('\n');
}

/** `markdown` (docs/api.md) with the text between its route list's markers replaced by the current list. */
export function withRouteList(markdown: string): string {
  const start = markdown.indexOf(START);
  const end = markdown.indexOf(END);
  if (start < 0 || end < start) throw new Error(`docs/api.md has no route list between "${START}" and "${END}"`);
  return `${markdown.slice(0, start + START.length)}\n\n${renderRouteList()}\n\n${markdown.slice(end)}`;
}
