/**
 * A release's fields as the create and update bodies take them (spec §4.4): name, description, type, parent
 * (nesting ≤ 3), start and end dates, branch, environment, build target, testers (members by e-mail or id),
 * note (rich HTML, written here as plain text) and linked issues. The lifecycle flags are separate buttons on
 * the release's page (the API takes them on update only).
 */
import { useState, type FormEvent } from 'react';
import { changedFields } from '../changes';
import type { Release } from '../data';
import { PLATFORMS, splitList, type Platform } from '../values';
import { SelectField, TextArea, TextField } from './fields';
import { FormError } from '../../../ui/FormError';
import { cleanIssues, LinkedIssuesEditor, type LinkedIssue } from './LinkedIssues';
import { ReleaseSelect } from './ReleaseSelect';
import { htmlToText, textToHtml } from './RichText';

export interface ReleaseDraft {
  name: string;
  description: string;
  type: string;
  parentReleaseId: string;
  startDate: string;
  endDate: string;
  branch: string;
  environment: string;
  platform: Platform | '';
  version: string;
  buildNumber: string;
  source: string;
  deployUrl: string;
  testers: string;
  note: string;
  linkedIssues: LinkedIssue[];
}

export const EMPTY_RELEASE: ReleaseDraft = {
  name: '',
  description: '',
  type: '',
  parentReleaseId: '',
  startDate: '',
  endDate: '',
  branch: '',
  environment: '',
  platform: '',
  version: '',
  buildNumber: '',
  source: '',
  deployUrl: '',
  testers: '',
  note: '',
  linkedIssues: [],
};

/** `2025-03-01` stays; a stored date-time shows as its date (the input takes dates). */
const dateInput = (v: string | null) => (v ? v.slice(0, 10) : '');

export function releaseDraft(r: Release): ReleaseDraft {
  return {
    name: r.name,
    description: r.description,
    type: r.type ?? '',
    parentReleaseId: r.parentReleaseId ?? '',
    startDate: dateInput(r.startDate),
    endDate: dateInput(r.endDate),
    branch: r.branch ?? '',
    environment: r.environment ?? '',
    platform: r.buildTarget?.platform ?? '',
    version: r.buildTarget?.version ?? '',
    buildNumber: r.buildTarget?.buildNumber ?? '',
    source: r.buildTarget?.source ?? '',
    deployUrl: r.buildTarget?.deployUrl ?? '',
    testers: r.testers.map((t) => t.email).join(', '),
    note: htmlToText(r.note),
    linkedIssues: r.linkedIssues,
  };
}

/** The create body: empty optional fields left out. */
export function releaseCreateBody(d: ReleaseDraft) {
  const opt = (v: string) => (v.trim() ? v.trim() : undefined);
  return {
    ...commonBody(d),
    type: opt(d.type),
    parentReleaseId: d.parentReleaseId || undefined,
    startDate: d.startDate || undefined,
    endDate: d.endDate || undefined,
    branch: opt(d.branch),
    environment: opt(d.environment),
  };
}

/**
 * The update body: what changed between two drafts, emptied texts sent as "" (an emptied date too: the API
 * then says a date cannot be blank), an emptied parent as null (moves the release to the top level).
 */
export function releaseUpdateBody(before: ReleaseDraft, after: ReleaseDraft) {
  const full = (d: ReleaseDraft) => ({
    ...commonBody(d),
    type: d.type.trim(),
    parentReleaseId: d.parentReleaseId || null,
    startDate: d.startDate,
    endDate: d.endDate,
    branch: d.branch.trim(),
    environment: d.environment.trim(),
  });
  return changedFields(full(before), full(after));
}

function commonBody(d: ReleaseDraft) {
  const target = (key: 'version' | 'buildNumber' | 'source' | 'deployUrl') => (d[key].trim() ? { [key]: d[key].trim() } : {});
  return {
    name: d.name,
    description: d.description,
    // The API has no way to remove a build target: choosing no platform leaves it as it is.
    buildTarget: d.platform
      ? { platform: d.platform, ...target('version'), ...target('buildNumber'), ...target('source'), ...target('deployUrl') }
      : undefined,
    testers: splitList(d.testers),
    note: textToHtml(d.note),
    linkedIssues: cleanIssues(d.linkedIssues),
  };
}

export function ReleaseForm({
  initial,
  releases,
  releaseId,
  submitLabel,
  error,
  pending,
  onSubmit,
}: {
  initial: ReleaseDraft;
  releases: Release[];
  /** The release being edited (never its own parent). */
  releaseId?: string;
  submitLabel: string;
  error: unknown;
  pending: boolean;
  onSubmit: (draft: ReleaseDraft) => void;
}) {
  const [d, setDraft] = useState(initial);
  const set = (patch: Partial<ReleaseDraft>) => setDraft((prev) => ({ ...prev, ...patch }));
  const submit = (e: FormEvent) => {
    e.preventDefault();
    onSubmit(d);
  };
  return (
    <form className="form-wide" onSubmit={submit} aria-label={submitLabel}>
      <div className="form-grid">
        <TextField label="Name" value={d.name} onChange={(name) => set({ name })} required />
        <TextField label="Release type" value={d.type} onChange={(type) => set({ type })} placeholder="e.g. major, hotfix" />
        <ReleaseSelect
          label="Parent release"
          releases={releases}
          value={d.parentReleaseId}
          exclude={releaseId}
          onChange={(parentReleaseId) => set({ parentReleaseId })}
        />
        <TextField label="Start date" type="date" value={d.startDate} onChange={(startDate) => set({ startDate })} />
        <TextField label="End date" type="date" value={d.endDate} onChange={(endDate) => set({ endDate })} />
        <TextField label="Branch" value={d.branch} onChange={(branch) => set({ branch })} />
        <TextField label="Environment" value={d.environment} onChange={(environment) => set({ environment })} />
        <TextField
          label="Testers"
          value={d.testers}
          onChange={(testers) => set({ testers })}
          hint="E-mails of organization members, comma-separated"
        />
      </div>
      <TextArea label="Description" value={d.description} onChange={(description) => set({ description })} rows={2} />
      <fieldset className="manual-fieldset">
        <legend>Build target</legend>
        <div className="form-grid">
          <SelectField label="Platform" value={d.platform} values={PLATFORMS} empty="None" onChange={(platform) => set({ platform })} />
          <TextField label="Version" value={d.version} onChange={(version) => set({ version })} disabled={!d.platform} />
          <TextField label="Build number" value={d.buildNumber} onChange={(buildNumber) => set({ buildNumber })} disabled={!d.platform} />
          <TextField label="Build source" value={d.source} onChange={(source) => set({ source })} disabled={!d.platform} />
          <TextField label="Deploy URL" value={d.deployUrl} onChange={(deployUrl) => set({ deployUrl })} disabled={!d.platform} />
        </div>
      </fieldset>
      <TextArea
        label="Release note"
        value={d.note}
        onChange={(note) => set({ note })}
        rows={4}
        hint="Plain text; blank lines start a new paragraph."
      />
      <LinkedIssuesEditor issues={d.linkedIssues} onChange={(linkedIssues) => set({ linkedIssues })} />
      <FormError error={error} />
      <button type="submit" className="button button-primary" disabled={pending}>
        {submitLabel}
      </button>
    </form>
  );
}
