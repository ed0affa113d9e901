import type { MongoMigration } from '@formgate/store/mongo';

/** The organizations' notification addresses (unique per organization) and the mails sent to each. */
export const notificationEmails: MongoMigration = {
  version: 3,
  name: 'create notification email indexes',
  async up(db) {
    const emails = db.collection('notification_emails');
    await emails.createIndex({ orgId: 1, email: 1 }, { name: 'org_email', unique: true });
    await emails.createIndex({ orgId: 1, createdAt: 1 }, { name: 'org_created' });
    await db
      .collection('notification_email_mails')
      .createIndex({ orgId: 1, email: 1, seq: -1 }, { name: 'org_email_seq' });
  },
};
