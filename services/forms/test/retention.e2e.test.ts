import { useTestMongo } from '@formgate/store/testing';
import { openMongoFormsStores } from './mongo-stores.ts';
import { retentionSuite } from './retention.suite.ts';

const mongo = useTestMongo();
retentionSuite('mongo', () => openMongoFormsStores(mongo()));
