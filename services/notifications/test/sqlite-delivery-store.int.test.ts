import { openSqlite } from '@formgate/store/sqlite';
import { createSqliteDeliveryStore } from '../src/deliveries/sqlite-delivery-store.ts';
import { runDeliveryStoreContract } from './delivery-store.contract.ts';

runDeliveryStoreContract({ name: 'sqlite', create: async () => createSqliteDeliveryStore(openSqlite(':memory:')) });
