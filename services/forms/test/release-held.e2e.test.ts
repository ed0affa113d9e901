import { useTestMongo } from '@formgate/store/testing';
import { createMongoFormsStore } from '../src/store/mongo-forms-store.ts';
import { releaseHeldSuite } from './release-held.suite.ts';

const mongo = useTestMongo();
releaseHeldSuite('mongo', () => createMongoFormsStore(mongo()));
