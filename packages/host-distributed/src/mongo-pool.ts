import type { StoreHealth } from '@formgate/kit';
import { connectMongo, type MongoConnection, probeStorage } from '@formgate/store/mongo';

export interface MongoPool {
  /** The connection to `<prefix>_<db>`: opened on first use, the same one to every later call (and boot attempt). */
  connect(db: string): Promise<MongoConnection>;
  close(): Promise<void>;
}

/**
 * A process's Mongo connections, one per database, each with its `StoreHealth` probe (`mongo:<db>`, failing from the
 * first request for the database until it is connected). A connection that was established is kept across boot
 * attempts — the driver reconnects it by itself, so a retried build gets it again instead of opening another — and
 * one that could not connect is closed by `connectMongo` and opened again on the next request. With `countCommand`,
 * every command a connection sends is counted under the database's short name (`accounts`, `forms`…).
 */
export function createMongoPool(opts: {
  url: string;
  prefix: string;
  /** This process's probe document (`probeStorage`). */
  probe: string;
  storeHealth: StoreHealth;
  /** Counts every command sent on the pool's connections (`formgate_mongo_commands_total`), by database name. */
  countCommand?: (db: string, command: string) => void;
}): MongoPool {
  const connections = new Map<string, MongoConnection>();
  /** Every connection established (a concurrent second request for a database may open one more): closed on `close`. */
  const opened: MongoConnection[] = [];
  const probed = new Set<string>();
  return {
    async connect(db) {
      const known = connections.get(db);
      if (known) return known;
      if (!probed.has(db)) {
        probed.add(db);
        opts.storeHealth.register(`mongo:${db}`, async () => {
          const conn = connections.get(db);
          if (!conn?.db) throw new Error('not connected');
          await probeStorage(conn.db, opts.probe);
        });
      }
      const { countCommand } = opts;
      const onCommand = countCommand ? (command: string) => countCommand(db, command) : undefined;
      const conn = await connectMongo(opts.url, `${opts.prefix}_${db}`, onCommand ? { onCommand } : {});
      opened.push(conn);
      connections.set(db, conn);
      return conn;
    },
    async close() {
      connections.clear();
      for (const conn of opened.splice(0)) await conn.close();
    },
  };
}
