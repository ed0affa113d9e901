import { createServer, type IncomingHttpHeaders, type IncomingMessage } from 'node:http';
import type { AddressInfo } from 'node:net';

type AnyValue = { stringValue?: string; intValue?: number | string; boolValue?: boolean; doubleValue?: number };
type KeyValue = { key: string; value: AnyValue };

/** One span as an OTLP/HTTP JSON export carries it, attributes flattened. */
export interface ReceivedSpan {
  traceId: string;
  spanId: string;
  parentSpanId?: string;
  name: string;
  /** 1 internal, 2 server, 3 client, 4 producer, 5 consumer. */
  kind: number;
  attributes: Record<string, string | number | boolean>;
  links: { traceId: string; spanId: string }[];
  resource: Record<string, string | number | boolean>;
}

const flat = (attributes: KeyValue[] = []) =>
  Object.fromEntries(
    attributes.map(({ key, value }) => [
      key,
      value.stringValue ??
        (value.intValue !== undefined ? Number(value.intValue) : (value.boolValue ?? value.doubleValue ?? '')),
    ]),
  );

export interface OtlpReceiver {
  /** The base URL: what `OTEL_EXPORTER_OTLP_ENDPOINT` is set to (exports arrive at `/v1/traces`). */
  url: string;
  spans(): ReceivedSpan[];
  /** Every export body as received. */
  raw(): unknown[];
  stop(): Promise<void>;
}

export const spansByName = (spans: ReceivedSpan[], name: string) => spans.filter((s) => s.name === name);

/**
 * An in-test OTLP/HTTP receiver (`node:http`): `POST /v1/traces` with a JSON body is collected; any other request
 * goes to `other` (e.g. a webhook target on the same port) and is answered 200.
 */
export async function startOtlpReceiver(
  other: (req: IncomingMessage, headers: IncomingHttpHeaders) => void = () => {},
): Promise<OtlpReceiver> {
  const bodies: unknown[] = [];
  const spans: ReceivedSpan[] = [];
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      if (req.method !== 'POST' || req.url !== '/v1/traces') {
        other(req, req.headers);
        return void res.end('ok');
      }
      const body = JSON.parse(Buffer.concat(chunks).toString('utf8')) as {
        resourceSpans?: {
          resource?: { attributes?: KeyValue[] };
          scopeSpans?: { spans?: (Omit<ReceivedSpan, 'attributes' | 'resource'> & { attributes?: KeyValue[] })[] }[];
        }[];
      };
      bodies.push(body);
      for (const rs of body.resourceSpans ?? []) {
        const resource = flat(rs.resource?.attributes);
        for (const ss of rs.scopeSpans ?? []) {
          for (const s of ss.spans ?? []) {
            spans.push({ ...s, links: s.links ?? [], attributes: flat(s.attributes), resource });
          }
        }
      }
      res.writeHead(200, { 'content-type': 'application/json' }).end('{}');
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    spans: () => [...spans],
    raw: () => [...bodies],
    stop: () =>
      new Promise((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
