import { useState } from 'react';
import { Panel } from '../../components/panel.tsx';
import { Notice } from '../../components/ui.tsx';
import { useOrganization } from '../organization/organization-layout.tsx';
import { useCan } from '../organization/use-can.ts';
import { ErasePanel } from './erase-panel.tsx';
import { ErasuresList } from './erasures-list.tsx';
import { RetentionPanel } from './retention-panel.tsx';
import { SubjectAccessPanel } from './subject-access-panel.tsx';

/**
 * `/dashboard/organization/privacy`: retention and erasure by submitter (issue 31). Every member reads how long
 * submissions are kept; owners and admins change it, export or erase a person's data and read the past erasures'
 * receipts; members are told who can. The server checks again.
 */
export function PrivacyScreen() {
  const organization = useOrganization();
  const { can } = useCan();
  // Bumped by each erasure: the export panel starts afresh, so the erased address is shown nowhere on the page.
  const [erasures, setErasures] = useState(0);
  return (
    <div className="flex flex-col gap-6">
      <RetentionPanel canUpdate={can({ organization: ['update'] })} />
      {can({ erasure: ['read'] }) ? <SubjectAccessPanel key={erasures} /> : null}
      {can({ erasure: ['create'] }) ? (
        <ErasePanel organizationName={organization.name} onErased={() => setErasures((n) => n + 1)} />
      ) : (
        <Panel title="Erase a person's data">
          <Notice>
            Only owners and admins of the organization can erase a person's data. Ask one of them when someone wants the
            submissions that name their email address deleted.
          </Notice>
        </Panel>
      )}
      {can({ erasure: ['read'] }) ? <ErasuresList organization={organization} /> : null}
    </div>
  );
}
