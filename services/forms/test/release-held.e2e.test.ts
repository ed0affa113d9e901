import { useTestMongo } from '@formgate/store/testing';
import { openMongoFormsStores } from './mongo-stores.ts';
import { releaseHeldSuite } from './release-held.suite.ts';

const mongo = useTestMongo();
releaseHeldSuite('mongo', () => openMongoFormsStores(mongo()));
