import { type FormRetentionDto, RETENTION_DAYS_MAX } from '@formgate/contracts';
import type { z } from 'zod';

/*
 * Retention (issue 31), as the organization's privacy page and a form's settings show and edit it: how long
 * submissions are kept, in days, or until deleted by hand. Pure functions, tested through the screens.
 */

/** "1 day", "30 days", "3,650 days". */
export const daysOf = (days: number) => `${days.toLocaleString('en')} ${days === 1 ? 'day' : 'days'}`;

/** What a retention means for the submissions: deleted after so many days, or kept until deleted by hand. */
export const retentionSentence = (days: number | null) =>
  days === null ? 'Submissions are kept until deleted' : `Submissions are deleted after ${daysOf(days)}`;

/** The plan's maximum, which caps every setting. */
export const planMaxSentence = (planMaxDays: number) => `Your plan keeps submissions at most ${daysOf(planMaxDays)}`;

const SOURCE_LABELS: Record<NonNullable<FormRetentionDto['source']>, string> = {
  form: "this form's setting",
  organization: "the organization's default",
  plan: "your plan's maximum",
};

/** The retention in force for a form, with where it comes from: "Submissions are deleted after 30 days (…)". */
export function inForceSentence(retention: Pick<FormRetentionDto, 'days' | 'source'>): string {
  const sentence = retentionSentence(retention.days);
  return retention.days !== null && retention.source
    ? `${sentence} (${SOURCE_LABELS[retention.source]}).`
    : `${sentence}.`;
}

/** Days as typed: a whole number from 1 to the longest retention anyone can set (the plan's maximum is the server's). */
export const isRetentionDays = (text: string) =>
  /^\d+$/.test(text.trim()) && Number(text) >= 1 && Number(text) <= RETENTION_DAYS_MAX;

export const RETENTION_DAYS_ERROR = `A whole number of days from 1 to ${RETENTION_DAYS_MAX.toLocaleString('en')}`;

/**
 * Checks the typed days of a retention choice: only when days are chosen (`mode === 'days'`); the other choice
 * (until deleted, or the organization's default) sends `null`. Issues go on `path`.
 */
export function checkRetentionChoice(mode: string, days: string, ctx: z.RefinementCtx, path: string) {
  if (mode === 'days' && !isRetentionDays(days))
    ctx.addIssue({ code: 'custom', path: [path], message: RETENTION_DAYS_ERROR });
}

/** The days of a retention choice as the API takes them: a number, or `null` for the other choice. */
export const retentionDaysOf = (mode: string, days: string): number | null =>
  mode === 'days' ? Number(days.trim()) : null;
