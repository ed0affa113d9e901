import { useQuery } from '@tanstack/react-query';
import { z } from 'zod';
import { fieldOf } from '../../components/form-field.ts';
import { Panel } from '../../components/panel.tsx';
import { SettingsForm, useSettingsForm } from '../../components/settings-form.tsx';
import { Notice } from '../../components/ui.tsx';
import { useUpdateRetention } from './privacy.mutations.ts';
import { type RetentionPolicyDto, retentionQuery } from './privacy.queries.ts';
import { checkRetentionChoice, daysOf, planMaxSentence, retentionDaysOf, retentionSentence } from './retention.ts';
import { RetentionChoice } from './retention-choice.tsx';

/** The panel's fields: until deleted (`other`) or a number of days, as typed. */
const RetentionFormSchema = z
  .object({ mode: z.enum(['other', 'days']), days: z.string() })
  .superRefine((v, ctx) => checkRetentionChoice(v.mode, v.days, ctx, 'days'));
type RetentionFormValues = z.infer<typeof RetentionFormSchema>;

const valuesOf = (policy: RetentionPolicyDto): RetentionFormValues => ({
  mode: policy.days === null ? 'other' : 'days',
  days: policy.days === null ? '' : String(policy.days),
});

/**
 * "Retention" (issue 31): how long the organization keeps submissions when a form sets nothing of its own, and the
 * plan's maximum. Every member reads it; owners and admins change it (the server checks again, and refuses more
 * days than the plan allows in its own words).
 */
export function RetentionPanel({ canUpdate }: { canUpdate: boolean }) {
  const policy = useQuery(retentionQuery());
  return (
    <Panel
      title="Retention"
      description="Submissions older than this are deleted for good, with their files, the copies kept of their notifications and the content of their deliveries. Deletion runs hourly. A form can set its own retention in its settings."
    >
      {policy.isPending ? <p role="status">Loading…</p> : null}
      {policy.isError ? <Notice tone="error">The retention could not be loaded.</Notice> : null}
      {policy.data ? <RetentionForm policy={policy.data} canUpdate={canUpdate} /> : null}
    </Panel>
  );
}

function RetentionForm({ policy, canUpdate }: { policy: RetentionPolicyDto; canUpdate: boolean }) {
  const fields = useSettingsForm<RetentionFormValues>(RetentionFormSchema, valuesOf(policy));
  const save = useUpdateRetention();
  const mode = fields.watch('mode');
  return (
    <>
      <div className="flex flex-col gap-1 text-sm">
        <p className="font-medium">{retentionSentence(policy.days)} unless a form sets its own.</p>
        {policy.planMaxDays === null ? null : <p>{planMaxSentence(policy.planMaxDays)}.</p>}
      </div>
      <SettingsForm
        fields={fields}
        onSave={(v) => save.mutate({ days: retentionDaysOf(v.mode, v.days) })}
        saving={save.isPending}
        submitLabel="Save retention"
        canUpdate={canUpdate}
        onlyChanges
        notice={
          canUpdate ? null : (
            <Notice>Only owners and admins of the organization can change how long submissions are kept.</Notice>
          )
        }
      >
        <RetentionChoice
          legend="Keep submissions"
          otherLabel="Keep until deleted"
          daysLabel="Delete after a number of days"
          mode={fields.register('mode')}
          daysField={fieldOf(fields, 'days')}
          daysChosen={mode === 'days'}
          hint={policy.planMaxDays === null ? undefined : `At most ${daysOf(policy.planMaxDays)} on your plan.`}
        />
      </SettingsForm>
    </>
  );
}
