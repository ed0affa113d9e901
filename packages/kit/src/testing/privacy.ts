import { createPrivacyKeys } from '../privacy-keys.ts';

/** Privacy keys for tests (issue 31): a fixed secret, so address keys are the same in every run. */
export const testPrivacyKeys = (secret = 'test-privacy-key-0123456789-abcdefghij') => createPrivacyKeys(secret);
