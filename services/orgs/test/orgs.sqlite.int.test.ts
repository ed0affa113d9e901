import { runAuditStoreContract } from './audit-store.contract.ts';
import { runOrgSpamStoreContract } from './org-spam-store.contract.ts';
import { runOrgsStoreContract } from './orgs-store.contract.ts';
import { sqliteOrgsStores } from './sqlite-orgs.ts';

const target = { name: 'sqlite', create: async () => sqliteOrgsStores() };
runOrgsStoreContract(target);
runAuditStoreContract(target);
runOrgSpamStoreContract(target);
